/**
 * `durable-agent run` as users run it: a separate process that, with TEMPORAL_ADDRESS unset and
 * nothing on its port, starts an embedded dev server with the Web UI, runs a worker, follows the
 * session turn by turn, and ends with the result and the UI link.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FakeAnthropicServer, byTurn, reply, text, toolUse } from '../support/fake-anthropic';
import { freePort } from '../support/global-setup';
import { makeRepo } from '../support/harness';
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
    (error: { stdout: string; stderr: string; code: number }) => ({ stdout: error.stdout, stderr: error.stderr, code: error.code }),
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

  const first = await cli(['run', '--workdir', workdir, '--workflow-id', 'cli-run-1', 'Use American spelling'], environment);
  const pid = first.stderr.match(/Stop it with: kill (\d+)/)?.[1];
  if (pid) startedServers.push(Number(pid));
  expect(first.stderr).toContain('Started a Temporal dev server');
  expect(first.code).toBe(0);
  expect(first.stdout).toContain('▶ task: Use American spelling');
  expect(first.stdout).toMatch(/── turn 1 · tool_use/);
  expect(first.stdout).toContain('Reading the notes.');
  expect(first.stdout).toContain('→ Read notes.txt');
  expect(first.stdout).toContain('✓ Read:      1\tcolour');
  expect(first.stdout).toContain('→ Edit notes.txt');
  expect(first.stdout).toContain('Result: completed after 3 turn(s)');
  const link = `http://127.0.0.1:${environment.DURABLE_AGENT_DEV_UI_PORT}/namespaces/default/workflows/cli-run-1`;
  expect(first.stdout).toContain(`Temporal UI: ${link}`);
  expect(readFileSync(join(workdir, 'notes.txt'), 'utf8')).toBe('color\n');
  // The embedded server outlives the command, so the link works afterwards.
  expect((await fetch(link)).status).toBe(200);

  // A second run reuses the server that now answers.
  fake.handler = byTurn([reply([text('Nothing to do.')])]);
  const second = await cli(['run', '--workdir', workdir, 'Check again'], environment);
  expect(second.code).toBe(0);
  expect(second.stderr).not.toContain('Started a Temporal dev server');
  expect(second.stdout).toContain('Nothing to do.');
});

test('a missing API key is a clear error before anything starts', async () => {
  const result = await cli(['run', '--workdir', makeRepo({}), 'task'], { ANTHROPIC_API_KEY: '', DURABLE_AGENT_DEV_SERVER_PORT: '1' });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('ANTHROPIC_API_KEY is not set');
  expect(result.stdout).toBe('');
});

test('bad arguments print the usage', async () => {
  const result = await cli(['run', 'task without a workdir'], {});
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('--workdir is required');
  expect(result.stderr).toContain('Usage:');
});
