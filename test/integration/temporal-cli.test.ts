/**
 * The documented way in: a shell starts the agent with the Temporal CLI, exactly as docs/temporal-cli.md
 * says, and `temporal workflow show` reads the session turn by turn.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { byTurn, reply, text, toolUse } from '../support/fake-anthropic';
import { Harness, makeRepo, temporalAddress } from '../support/harness';

jest.setTimeout(120_000);

const run = promisify(execFile);
const temporal = (...args: string[]) => run(process.env.TEMPORAL_CLI_PATH!, [...args, '--address', temporalAddress()]);

let harness: Harness;
afterAll(async () => {
  await harness?.stop();
});

test('temporal workflow start runs a multi-turn task; workflow show lists each model and tool call with its summary', async () => {
  const workdir = makeRepo({
    'src/config.js': 'exports.parseConfig = (t) => JSON.parse(t);\n',
    'src/use.js': "require('./config').parseConfig('{}');\n",
  });
  harness = await Harness.start(
    byTurn([
      reply([
        toolUse('Grep', { pattern: 'parseConfig' }),
        toolUse('Read', { file_path: 'src/config.js' }),
        toolUse('Read', { file_path: 'src/use.js' }),
      ]),
      reply([
        toolUse('Edit', { file_path: 'src/config.js', old_string: 'parseConfig', new_string: 'loadConfig' }),
        toolUse('Edit', { file_path: 'src/use.js', old_string: 'parseConfig', new_string: 'loadConfig' }),
      ]),
      reply([toolUse('Bash', { command: 'node src/use.js', description: 'Check it loads' })]),
      reply([text('Renamed parseConfig to loadConfig everywhere.')]),
    ]),
    'durable-agent', // the documented default task queue
  );
  await harness.startWorker();

  const input = JSON.stringify({ prompt: 'Rename parseConfig to loadConfig everywhere', workdir });
  const summary = 'Rename parseConfig to loadConfig everywhere';
  await temporal(
    'workflow',
    'start',
    '--task-queue',
    'durable-agent',
    '--type',
    'agentWorkflow',
    '--workflow-id',
    'refactor-1',
    '--static-summary',
    summary,
    '--input',
    input,
  );

  const result = await harness.client.workflow.getHandle('refactor-1').result();
  expect(await (await harness.client.workflow.getHandle('refactor-1').describe()).staticSummary()).toBe(summary);
  expect(result).toMatchObject({
    reason: 'completed',
    turnCount: 4,
    finalText: 'Renamed parseConfig to loadConfig everywhere.',
  });
  expect(readFileSync(join(workdir, 'src/config.js'), 'utf8')).toBe('exports.loadConfig = (t) => JSON.parse(t);\n');

  const { stdout } = await temporal('workflow', 'show', '--workflow-id', 'refactor-1', '--detailed');
  const activities: string[] = [];
  let type = '';
  for (const line of stdout.split('\n')) {
    const typeMatch = line.match(/^\s*activityType\.name\s+(\S+)/) ?? line.match(/activityType\.name:\s*(\S+)/);
    if (typeMatch) type = typeMatch[1]!;
    const summaryMatch = line.match(/^\s*userMetadata\.summary:?\s+(.+?)\s*$/);
    if (summaryMatch && type) {
      activities.push(`${type}: ${summaryMatch[1]}`);
      type = '';
    }
  }
  expect(activities.filter((line) => line.startsWith('summarizeToolBatch'))).toHaveLength(3);
  expect(activities.filter((line) => !line.startsWith('summarizeToolBatch'))).toEqual([
    'prepareSession: prepare session',
    'snapshotWorkspace: snapshot (start)',
    'callModel: turn 1 · model',
    'runTool: Grep parseConfig',
    'runTool: Read src/config.js',
    'runTool: Read src/use.js',
    'callModel: turn 2 · model',
    'runTool: Edit src/config.js',
    'runTool: Edit src/use.js',
    'callModel: turn 3 · model',
    'runTool: Bash Check it loads',
    'callModel: turn 4 · model',
    'diffSnapshots: files changed',
    'closeSession: close session',
  ]);
});

test('the documented Temporal CLI steering commands: query state, update approveTool, signal userMessage and end', async () => {
  const requests: string[] = [];
  harness.fake.handler = (request) => {
    requests.push(JSON.stringify(request.body.messages));
    if (requests.length === 1) return reply([toolUse('Bash', { command: 'echo hi > hi.txt' }, 'toolu_cli_bash')]);
    return reply([text(requests.length === 2 ? 'Wrote hi.txt.' : 'Understood.')]);
  };
  const workdir = makeRepo({});
  const input = JSON.stringify({ prompt: 'say hi', workdir, interactive: true, permissionMode: 'ask' });
  await temporal(
    'workflow',
    'start',
    '--task-queue',
    'durable-agent',
    '--type',
    'agentWorkflow',
    '--workflow-id',
    'steer-1',
    '--input',
    input,
  );
  const state = async () =>
    JSON.parse(
      (await temporal('workflow', 'query', '--workflow-id', 'steer-1', '--type', 'state', '--output', 'json')).stdout,
    ).queryResult[0];
  // The Temporal CLI prints empty arrays as null.
  while (!(await state()).pendingApprovals?.length) await new Promise((resolve) => setTimeout(resolve, 100));
  expect((await state()).pendingApprovals[0]).toMatchObject({
    toolUseId: 'toolu_cli_bash',
    summary: 'Bash echo hi > hi.txt',
  });
  await temporal(
    'workflow',
    'update',
    'execute',
    '--workflow-id',
    'steer-1',
    '--name',
    'approveTool',
    '--input',
    '{"toolUseId":"toolu_cli_bash","decision":"allow"}',
  );
  while ((await state()).status !== 'waiting_input') await new Promise((resolve) => setTimeout(resolve, 100));
  await temporal(
    'workflow',
    'signal',
    '--workflow-id',
    'steer-1',
    '--name',
    'userMessage',
    '--input',
    '{"text":"Thanks, that is all."}',
  );
  while ((await state()).turn !== 3) await new Promise((resolve) => setTimeout(resolve, 100));
  await temporal('workflow', 'signal', '--workflow-id', 'steer-1', '--name', 'end');
  const result = await harness.client.workflow.getHandle('steer-1').result();
  expect(result).toMatchObject({ reason: 'completed', finalText: 'Understood.' });
  expect(readFileSync(join(workdir, 'hi.txt'), 'utf8')).toBe('hi\n');
  expect(requests[2]).toContain('Thanks, that is all.');
});

test('the documented Temporal CLI workspace commands: snapshots in state, query diff and checkpoint, update rewind', async () => {
  let rewound = false;
  harness.fake.handler = byTurn([
    reply([toolUse('Bash', { command: 'echo one > one.txt' })]),
    () =>
      rewound ? reply([text('Back before one.txt.')]) : reply([toolUse('Bash', { command: 'echo two > two.txt' })]),
    reply([text('Wrote two files.')]),
  ]);
  const workdir = makeRepo({ 'README.md': 'x\n' });
  await temporal(
    'workflow',
    'start',
    '--task-queue',
    'durable-agent',
    '--type',
    'agentWorkflow',
    '--workflow-id',
    'workspace-1',
    '--input',
    JSON.stringify({ prompt: 'write', workdir, interactive: true }),
  );
  const query = async (type: string, input?: string) =>
    JSON.parse(
      (
        await temporal(
          'workflow',
          'query',
          '--workflow-id',
          'workspace-1',
          '--type',
          type,
          ...(input ? ['--input', input] : []),
          '--output',
          'json',
        )
      ).stdout,
    ).queryResult[0];
  while ((await query('state')).status !== 'waiting_input') await new Promise((resolve) => setTimeout(resolve, 100));
  expect(
    (await query('state')).snapshots.map((snapshot: { turn: number; filesChanged: number }) => [
      snapshot.turn,
      snapshot.filesChanged,
    ]),
  ).toEqual([
    [0, 0],
    [1, 1],
    [2, 1],
  ]);
  expect(await query('diff', '{"fromTurn":1,"toTurn":2}')).toMatchObject({
    fromTurn: 1,
    toTurn: 2,
    fromRef: expect.stringMatching(/^sha256:/),
    toRef: expect.stringMatching(/^sha256:/),
  });
  expect(await query('checkpoint', '{"turn":1}')).toMatchObject({
    turn: 1,
    endsWithUser: true,
    snapshotRef: expect.stringMatching(/^sha256:/),
  });

  rewound = true;
  const { stdout } = await temporal(
    'workflow',
    'update',
    'execute',
    '--workflow-id',
    'workspace-1',
    '--name',
    'rewind',
    '--input',
    '{"turn":1}',
    '--output',
    'json',
  );
  expect(stdout).toMatch(/"filesRestored":\s*1/);
  while ((await query('state')).status !== 'waiting_input') await new Promise((resolve) => setTimeout(resolve, 100));
  await temporal('workflow', 'signal', '--workflow-id', 'workspace-1', '--name', 'end');
  expect(await harness.client.workflow.getHandle('workspace-1').result()).toMatchObject({
    reason: 'completed',
    finalText: 'Back before one.txt.',
  });
  expect(readdirSync(workdir).sort()).toEqual(['README.md', 'one.txt']);
});
