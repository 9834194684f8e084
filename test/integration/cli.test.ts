/**
 * `durable-agent run` as users run it: a separate process that, with TEMPORAL_ADDRESS unset and
 * nothing on its port, starts an embedded dev server with the Web UI, runs a worker, follows the
 * session turn by turn, and ends with the result and the UI link.
 */
import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { AgentState } from '../../src/shared/contract';
import { FakeAnthropicServer, byTurn, reply, text, toolUse, type RecordedRequest } from '../support/fake-anthropic';
import { freePort } from '../support/global-setup';
import { Harness, makeRepo, temporalAddress } from '../support/harness';
import { PROJECT_ROOT, scratchDir } from '../support/paths';

jest.setTimeout(180_000);

const run = promisify(execFile);
let fake: FakeAnthropicServer;
const startedServers: number[] = [];

beforeAll(async () => {
  fake = await FakeAnthropicServer.start();
});
afterAll(async () => {
  for (const pid of startedServers) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  await fake.close();
});

function cli(args: string[], environment: NodeJS.ProcessEnv) {
  const { TEMPORAL_ADDRESS: _unset, ...rest } = process.env;
  return run(process.execPath, [join(PROJECT_ROOT, 'bin', 'durable-agent.js'), ...args], {
    cwd: PROJECT_ROOT,
    env: { ...rest, ...environment },
    timeout: 150_000,
  }).then(
    (output) => ({ ...output, code: 0 }),
    (error: { stdout: string; stderr: string; code: number }) => ({
      stdout: error.stdout,
      stderr: error.stderr,
      code: error.code,
    }),
  );
}

test('run starts an embedded dev server, prints each turn, and ends with the result and the UI link', async () => {
  const workdir = makeRepo({ 'notes.txt': 'colour\n' });
  fake.handler = byTurn([
    reply([text('Reading the notes.'), toolUse('Read', { file_path: 'notes.txt' })]),
    reply([toolUse('Edit', { file_path: 'notes.txt', old_string: 'colour', new_string: 'color' })]),
    reply([text('Changed colour to color.')]),
  ]);
  const port = await freePort();
  const environment = {
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: fake.url,
    AGENT_TASK_QUEUE: 'cli-test',
    AGENT_CONTENT_DIR: scratchDir('cli-content'),
    DURABLE_AGENT_HOME: scratchDir('cli-home'),
    DURABLE_AGENT_DEV_SERVER_PORT: String(port),
    DURABLE_AGENT_DEV_UI_PORT: String(await freePort()),
  };

  const first = await cli(
    ['run', '--workdir', workdir, '--workflow-id', 'cli-run-1', 'Use American spelling'],
    environment,
  );
  const pid = first.stderr.match(/Stop it with: kill (\d+)/)?.[1];
  if (pid) startedServers.push(Number(pid));
  expect(first.stderr).toContain('Started a Temporal dev server');
  expect(first.code).toBe(0);
  expect(first.stdout).toContain('▶ task: Use American spelling');
  // Turn 1's text, streamed or (had the transcript overtaken the stream) printed whole: once either way.
  expect(first.stdout).toMatch(/── turn 1( · tool_use · \d+ in \/ \d+ out\n|\n  Reading the notes\.\n  · tool_use · )/);
  expect(first.stdout.match(/Reading the notes\./g)).toHaveLength(1);
  expect(first.stdout).toContain('→ Read notes.txt');
  expect(first.stdout).toContain('✓ Read:      1\tcolour');
  expect(first.stdout).toContain('→ Edit notes.txt');
  expect(first.stdout).toContain('Result: completed after 3 turn(s)');
  const link = `http://127.0.0.1:${environment.DURABLE_AGENT_DEV_UI_PORT}/namespaces/default/workflows/cli-run-1`;
  expect(first.stdout).toContain(`Temporal UI: ${link}`);
  expect(readFileSync(join(workdir, 'notes.txt'), 'utf8')).toBe('color\n');
  // The embedded server outlives the command, so the link works afterwards.
  expect((await fetch(link)).status).toBe(200);
  // Its SQLite file is in write-ahead-log mode (the header's read and write versions are 2).
  const header = readFileSync(join(environment.DURABLE_AGENT_HOME, 'temporal.db')).subarray(18, 20);
  expect([...header]).toEqual([2, 2]);

  // A second run reuses the server that now answers.
  fake.handler = byTurn([reply([text('Nothing to do.')])]);
  const second = await cli(['run', '--workdir', workdir, 'Check again'], environment);
  expect(second.code).toBe(0);
  expect(second.stderr).not.toContain('Started a Temporal dev server');
  expect(second.stdout).toContain('Nothing to do.');

  // --repo: a fresh clone on the worker host; the changes end on a branch of the remote.
  const remote = join(scratchDir('cli-remote'), 'app.git');
  const git = (args: string[], cwd = workdir) =>
    run('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd });
  await git(['init', '-q', '-b', 'main']);
  await git(['add', '-A']);
  await git(['commit', '-q', '-m', 'start']);
  await git(['clone', '-q', '--bare', workdir, remote]);
  fake.handler = byTurn([
    reply([toolUse('Write', { file_path: 'NEW.md', content: 'new\n' })]),
    reply([text('Added NEW.md.')]),
  ]);
  const third = await cli(
    ['run', '--repo', `file://${remote}`, '--ref', 'main', '--workflow-id', 'cli-repo-1', 'Add NEW.md'],
    {
      ...environment,
      AGENT_WORKSPACE_ROOTS: scratchDir('cli-clones'),
    },
  );
  expect(third.code).toBe(0);
  expect(third.stdout).toMatch(/Branch: durable-agent\/cli-repo-1 at [0-9a-f]{12}, pushed/);
  expect((await run('git', ['--git-dir', remote, 'show', 'durable-agent/cli-repo-1:NEW.md'])).stdout).toBe('new\n');
});

test("with a key, run starts a codec server beside its embedded dev server, and the server's Web UI decodes through it", async () => {
  fake.handler = byTurn([reply([text('Encrypted hello.')])]);
  const uiPort = await freePort();
  const codecPort = await freePort();
  const environment = {
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: fake.url,
    AGENT_TASK_QUEUE: 'cli-codec-test',
    AGENT_CONTENT_DIR: scratchDir('cli-codec-content'),
    DURABLE_AGENT_HOME: scratchDir('cli-codec-home'),
    DURABLE_AGENT_DEV_SERVER_PORT: String(await freePort()),
    DURABLE_AGENT_DEV_UI_PORT: String(uiPort),
    DURABLE_AGENT_CODEC_PORT: String(codecPort),
    AGENT_ENCRYPTION_KEY: `k1:${Buffer.alloc(32, 9).toString('base64')}`,
  };
  const result = await cli(['run', '--workdir', makeRepo({}), 'Say hello'], environment);
  for (const pid of result.stderr.matchAll(/Stop it with: kill (\d+)/g)) startedServers.push(Number(pid[1]));
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('Encrypted hello.');
  expect(result.stderr).toContain(`Started a codec server for the Web UI (pid`);
  const settings = (await (await fetch(`http://127.0.0.1:${uiPort}/api/v1/settings`)).json()) as {
    Codec?: { Endpoint?: string };
  };
  expect(settings.Codec?.Endpoint).toBe(`http://127.0.0.1:${codecPort}`);
  const preflight = await fetch(`http://127.0.0.1:${codecPort}/decode`, {
    method: 'OPTIONS',
    headers: { Origin: `http://127.0.0.1:${uiPort}` },
  });
  expect(preflight.headers.get('access-control-allow-origin')).toBe(`http://127.0.0.1:${uiPort}`);

  // Sandboxed commands share this loopback: the local codec server wants the token it made, kept
  // owner-only where sandboxes do not look, and printed only as where to find it.
  const tokenFile = join(environment.DURABLE_AGENT_HOME, 'codec-token');
  expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
  const token = readFileSync(tokenFile, 'utf8').trim();
  expect(result.stderr).not.toContain(token);
  expect(result.stderr).toContain(
    `--codec-endpoint http://127.0.0.1:${codecPort} --codec-auth "Bearer $(cat ${tokenFile})"`,
  );
  // The dev server's UI cannot send a bearer token: a browser signs in, and the UI sends its cookie.
  expect(result.stderr).toContain(
    `sign this browser in once at http://127.0.0.1:${codecPort}/login with the token (in ${tokenFile})`,
  );
  const decode = (headers: Record<string, string>) =>
    fetch(`http://127.0.0.1:${codecPort}/decode`, { method: 'POST', body: '{"payloads":[]}', headers });
  expect((await decode({ 'X-Namespace': 'default' })).status).toBe(401);
  expect((await decode({ 'X-Namespace': 'default', Authorization: `Bearer ${token}` })).status).toBe(200);
});

test('a missing API key is a clear error before anything starts', async () => {
  const result = await cli(['run', '--workdir', makeRepo({}), 'task'], {
    ANTHROPIC_API_KEY: '',
    DURABLE_AGENT_DEV_SERVER_PORT: '1',
  });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('ANTHROPIC_API_KEY is not set');
  expect(result.stdout).toBe('');
});

test('bad arguments print the usage', async () => {
  const result = await cli(['run', 'task without a workdir'], {});
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('give --workdir <dir> or --repo <url>');
  expect(result.stderr).toContain('Usage:');
});

test('status, list, approve, send, interrupt, end and watch steer a running session', async () => {
  const harness = await Harness.start();
  try {
    await harness.startWorker();
    const requests: RecordedRequest[] = [];
    const replies = [
      () => reply([toolUse('Write', { file_path: 'out.txt', content: 'ok' }, 'toolu_cli_write')]),
      () => reply([text('Wrote out.txt.')]),
      () => reply([text('Thanks for the note.')]),
    ];
    harness.fake.handler = (request) => {
      requests.push(request);
      return (replies[requests.length - 1] ?? (() => reply([text('(end)')])))();
    };
    const workdir = makeRepo({});
    const handle = await harness.start({ prompt: 'write out.txt', workdir, interactive: true, permissionMode: 'ask' });
    const environment = { TEMPORAL_ADDRESS: temporalAddress() };
    const watching = cli(['watch', handle.workflowId], environment);

    let status = await cli(['status', handle.workflowId], environment);
    while (!status.stdout.includes('waiting for approval'))
      status = await cli(['status', handle.workflowId], environment);
    expect(status.stdout).toContain(
      `waiting for approval: Write out.txt  →  durable-agent approve ${handle.workflowId} toolu_cli_write`,
    );
    const listed = await cli(['list', '--status', 'waiting_approval'], environment);
    expect(listed.stdout).toMatch(new RegExp(`^${handle.workflowId} +waiting_approval +1 `, 'm'));

    const approved = await cli(
      ['approve', handle.workflowId, 'toolu_cli_write', '--feedback', 'looks fine'],
      environment,
    );
    expect(approved).toMatchObject({ code: 0, stdout: 'Allowed toolu_cli_write.\n' });
    const unknown = await cli(['approve', handle.workflowId, 'toolu_unknown'], environment);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No tool call toolu_unknown is waiting for approval');

    while ((await handle.query<AgentState>('state')).status !== 'waiting_input')
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await cli(['interrupt', handle.workflowId], environment)).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('Nothing to interrupt'),
    });
    expect(await cli(['send', handle.workflowId, 'Also', 'a', 'note'], environment)).toMatchObject({ code: 0 });
    // Turn 3 has begun and its answer is in once the session waits again.
    for (
      let state = await handle.query<AgentState>('state');
      state.turn !== 3 || state.status !== 'waiting_input';
      state = await handle.query<AgentState>('state')
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(JSON.stringify(requests[2]!.body.messages)).toContain('Also a note');
    expect(await cli(['end', handle.workflowId], environment)).toMatchObject({
      code: 0,
      stdout: `Asked ${handle.workflowId} to end: an interactive session closes, with its result, once it waits for input.\n`,
    });

    const watched = await watching;
    expect(watched.code).toBe(0);
    expect(watched.stdout).toContain('→ Write out.txt');
    expect(watched.stdout).toContain('✓ Write: File created successfully at: out.txt');
    expect(JSON.stringify(requests[1]!.body.messages)).toContain('User feedback on approval: looks fine');
    expect(watched.stdout).toContain('Thanks for the note.');
    // The message sent shows where the turn that took it begins, and in --json as a user_message.
    expect(watched.stdout).toMatch(/▶ message: Also a note\n(.*\n)*.*Thanks for the note\./);
    const json = await cli(['watch', handle.workflowId, '--json'], environment);
    const events = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; turn: number; text?: string });
    expect(events).toContainEqual(expect.objectContaining({ type: 'user_message', turn: 3, text: 'Also a note' }));
    expect(watched.stdout).toContain('Result: completed after 3 turn(s)');
    expect(readFileSync(join(workdir, 'out.txt'), 'utf8')).toBe('ok');
  } finally {
    await harness.stop();
  }
});

test('status, watch, diff and list of a finished session whose workers are all stopped answer from its result and what it stored', async () => {
  const harness = await Harness.start();
  try {
    const worker = await harness.startWorker();
    harness.fake.handler = byTurn([
      reply([toolUse('Write', { file_path: 'a.txt', content: 'a\n' })]),
      reply([text('Wrote a.txt.')]),
    ]);
    const handle = await harness.start({ prompt: 'write a.txt', workdir: makeRepo({}), toolSummaries: false });
    await handle.result();
    worker.shutdown();
    while (worker.getState() !== 'STOPPED') await new Promise((resolve) => setTimeout(resolve, 50));
    const environment = { TEMPORAL_ADDRESS: temporalAddress(), ...harness.storeEnvironment() };

    const status = await cli(['status', handle.workflowId], environment);
    expect(status).toMatchObject({ code: 0, stderr: '' });
    const [header, row] = status.stdout.split('\n');
    expect(header).toMatch(/^ID +STATUS +TURN +AGE +HOST +LAST TRANSITION +TOKENS \(IN\/OUT\) +COST$/);
    expect(row).toMatch(
      new RegExp(
        `^${handle.workflowId} +finished \\(completed\\) +2 +\\d+ s +— +next_turn +[\\d.k]+ / \\d+ +\\$\\d+\\.\\d{4}$`,
      ),
    );
    expect(status.stdout).toContain('Result: completed after 2 turn(s)');
    const json = await cli(['status', handle.workflowId, '--json'], environment);
    expect(JSON.parse(json.stdout)).toMatchObject({
      workflowId: handle.workflowId,
      status: 'finished',
      workflowStatus: 'COMPLETED',
      turn: 2,
      reason: 'completed',
      source: 'result',
    });

    const watched = await cli(['watch', handle.workflowId], environment);
    expect(watched).toMatchObject({ code: 0, stderr: '' });
    expect(watched.stdout).toContain('▶ task: write a.txt');
    expect(watched.stdout).toContain('  → Write a.txt');
    expect(watched.stdout).toContain('  Wrote a.txt.');
    expect(watched.stdout).toContain('Result: completed after 2 turn(s)');

    const diff = await cli(['diff', handle.workflowId, '--stat'], environment);
    expect(diff).toMatchObject({ code: 0, stderr: '' });
    expect(diff.stdout).toMatch(/a\.txt \| +1 \+/);

    const listed = await cli(['list', '--json', '--limit', '50'], environment);
    expect(listed.code).toBe(0);
    expect(
      (JSON.parse(listed.stdout) as { workflowId: string }[]).find(
        (session) => session.workflowId === handle.workflowId,
      ),
    ).toMatchObject({
      status: 'finished',
      turn: 2,
      reason: 'completed',
    });
  } finally {
    await harness.stop();
  }
});

test('watch and status of a failed session say why it failed, not only "Activity task failed"', async () => {
  const harness = await Harness.start();
  try {
    await harness.startWorker();
    const missing = join(scratchDir('cli-failed'), 'missing');
    const handle = await harness.start({ prompt: 'go', workdir: missing });
    await expect(handle.result()).rejects.toThrow();
    const environment = { TEMPORAL_ADDRESS: temporalAddress(), ...harness.storeEnvironment() };

    const watched = await cli(['watch', handle.workflowId], environment);
    expect(watched.code).toBe(1);
    expect(watched.stderr).toContain(
      `Workflow ${handle.workflowId} failed: Activity task failed: workdir: ${missing} does not exist`,
    );
    const status = await cli(['status', handle.workflowId, '--json'], environment);
    expect(JSON.parse(status.stdout)).toMatchObject({
      reason: expect.stringContaining(`workdir: ${missing} does not exist`),
    });
  } finally {
    await harness.stop();
  }
});
