/**
 * The documented way in: a shell starts the agent with the Temporal CLI, exactly as the README
 * says, and `temporal workflow show` reads the session turn by turn.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
  const workdir = makeRepo({ 'src/config.js': 'exports.parseConfig = (t) => JSON.parse(t);\n', 'src/use.js': "require('./config').parseConfig('{}');\n" });
  harness = await Harness.start(
    byTurn([
      reply([toolUse('Grep', { pattern: 'parseConfig' }), toolUse('Read', { file_path: 'src/config.js' }), toolUse('Read', { file_path: 'src/use.js' })]),
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
  await temporal('workflow', 'start', '--task-queue', 'durable-agent', '--type', 'agentWorkflow', '--workflow-id', 'refactor-1', '--input', input);

  const result = await harness.client.workflow.getHandle('refactor-1').result();
  expect(result).toMatchObject({ reason: 'completed', turnCount: 4, finalText: 'Renamed parseConfig to loadConfig everywhere.' });
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
  ]);
});
