/**
 * The pool against a real stdio server (the SDK's server classes, bundled), started unconfined
 * here (the integration test runs it in bubblewrap): connections per session, a dead server
 * started again, and nothing left running once the session closes.
 */
import { McpPool } from '../../../../src/activities/mcp/mcp-pool';
import { shellWord } from '../../../../src/sandbox/shell-word';
import { unconfined } from '../../../../src/sandbox/command-sandbox';
import { mcpStdioServerBundle } from '../../../support/mcp-servers';
import { scratchDir } from '../../../support/paths';

jest.setTimeout(30_000);

const workdir = scratchDir('mcp-pool');
const server = {
  command: process.execPath,
  args: [mcpStdioServerBundle(workdir)],
  env: { MCP_GREETING: 'hello there' },
};
const place = { workdir, sandbox: { env: { SESSION_FLAVOUR: 'vanilla' } } };
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

test('a session’s server is opened once, started again when it died, and killed with its session', async () => {
  const pool = new McpPool(unconfined());
  const first = await pool.connect('session-1', 'files', server, place);
  expect(await pool.connect('session-1', 'files', server, place)).toBe(first);
  expect((await pool.listTools(first)).map((tool) => tool.name)).toEqual([
    'echo',
    'env',
    'grow',
    'crash',
    'slow',
    'connect',
    'write_file',
  ]);
  const env = JSON.parse(text(await first.client.callTool({ name: 'env', arguments: {} }))) as {
    names: string[];
    greeting: string;
  };
  expect(env.greeting).toBe('hello there');
  expect(env.names).toContain('SESSION_FLAVOUR');

  // Dies mid-call: the call fails, and the next connect starts the server again.
  await expect(first.client.callTool({ name: 'crash', arguments: {} })).rejects.toThrow();
  expect(first.closed).toBe(true);
  const second = await pool.connect('session-1', 'files', server, place);
  expect(second).not.toBe(first);
  expect(text(await second.client.callTool({ name: 'echo', arguments: { text: 'again' } }))).toBe('echo: again');

  // Another session has its own server; closing one session leaves the other's.
  const other = await pool.connect('session-2', 'files', server, place);
  const pids = [
    (second as unknown as { transport: { pid: number } }).transport.pid,
    (other as unknown as { transport: { pid: number } }).transport.pid,
  ];
  await pool.closeSession('session-1');
  expect(pool.size).toBe(1);
  while (alive(pids[0]!)) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(alive(pids[1]!)).toBe(true);
  await pool.closeSession('session-2');
  while (alive(pids[1]!)) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(pool.size).toBe(0);
});

test('a server that cannot start is an error saying what it wrote', async () => {
  const pool = new McpPool(unconfined());
  await expect(pool.connect('session-3', 'broken', { command: 'definitely-not-a-command' }, place)).rejects.toThrow(
    /definitely-not-a-command/,
  );
  expect(pool.size).toBe(0);
});

test('a connection left unused is closed (another worker closed its session)', async () => {
  const pool = new McpPool(unconfined(), 60_000);
  const connection = await pool.connect('session-4', 'files', server, place);
  const pid = (connection as unknown as { transport: { pid: number } }).transport.pid;
  await pool.closeIdle(Date.now());
  expect(pool.size).toBe(1);
  await pool.closeIdle(Date.now() + 60_000);
  expect(pool.size).toBe(0);
  while (alive(pid)) await new Promise((resolve) => setTimeout(resolve, 20));
});

test('words are quoted for the sandbox shell', () => {
  expect(shellWord('node')).toBe('node');
  expect(shellWord("it's; rm -rf /")).toBe(`'it'\\''s; rm -rf /'`);
});

test('a server that never answers initialize fails after its startupTimeoutMs, naming itself and the field', async () => {
  const pool = new McpPool(unconfined());
  const silent = { command: 'sleep', args: ['60'], startupTimeoutMs: 1_000 };
  const failure = pool.connect('session-3', 'silent', silent, place);
  await expect(failure).rejects.toThrow('MCP server "silent" did not start within 1000 ms');
  await expect(failure).rejects.toThrow('"startupTimeoutMs" in its configuration (default 30000');
  expect(pool.size).toBe(0);
});
