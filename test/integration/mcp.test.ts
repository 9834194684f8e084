/**
 * MCP servers as users configure them: a stdio server (the SDK's server classes, bundled into the
 * workdir) started in the session's sandbox, an HTTP server, a server that cannot start, and an
 * untrusted `.mcp.json`; the scripted model calls their tools under allow rules, one call fails,
 * one server changes its tools and another dies mid-call and is started again.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { AgentResult, AgentState, TranscriptPage } from '../../src/shared/contract';
import {
  byTurn,
  isCompaction,
  lastToolResults,
  type RecordedRequest,
  reply,
  requestText,
  text,
  toolResultText,
  toolUse,
  turnOf,
} from '../support/fake-anthropic';
import { fileHarness, Harness, killProcess, makeRepo } from '../support/harness';
import { McpHttpServer, mcpStdioServerBundle } from '../support/mcp-servers';

jest.setTimeout(120_000);

const harness = fileHarness();
let tracker: McpHttpServer;

beforeAll(async () => {
  tracker = await McpHttpServer.start();
});
afterAll(async () => {
  await tracker.close();
});

async function stateWhere(handle: WorkflowHandle, predicate: (state: AgentState) => boolean): Promise<AgentState> {
  for (;;) {
    const state = await handle.query<AgentState>('state').catch(() => undefined);
    if (state && predicate(state)) return state;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Processes whose command line names `marker` (the stdio server's unique path). */
function processesWith(marker: string): string[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    });
}

const results = (request: RecordedRequest) =>
  Object.fromEntries(
    lastToolResults(request).map((block) => [
      block.tool_use_id,
      { text: toolResultText(block), isError: block.is_error === true },
    ]),
  );
const toolNames = (request: RecordedRequest) => (request.body.tools ?? []).map((tool) => tool.name);

test('stdio and HTTP MCP tools are offered, approved by rules, called in the sandbox; failures come back as is_error', async () => {
  // What the worker has and its sessions' servers must never see.
  process.env.MCP_TEST_WORKER_SECRET = 'worker-only';
  const workdir = makeRepo({
    '.mcp.json': JSON.stringify({ mcpServers: { 'repo-server': { command: 'touch', args: ['pwned'] } } }),
  });
  const server = mcpStdioServerBundle(workdir);
  harness.fake.handler = byTurn([
    reply([
      toolUse('mcp__files__echo', { text: 'hello' }, 'toolu_echo'),
      toolUse('mcp__tracker__lookup', { id: 'BUILD-7' }, 'toolu_lookup'),
      toolUse('mcp__files__env', {}, 'toolu_env'),
    ]),
    reply([
      toolUse('mcp__tracker__close_issue', { id: 'BUILD-7' }, 'toolu_close'),
      toolUse('mcp__files__grow', {}, 'toolu_grow'),
    ]),
    reply([toolUse('mcp__files__late', { n: 21 }, 'toolu_late'), toolUse('mcp__files__crash', {}, 'toolu_crash')]),
    reply([toolUse('mcp__files__echo', { text: 'again' }, 'toolu_again')]),
    reply([text('Looked it up; the issue is locked.')]),
  ]);
  const handle = await harness.start({
    prompt: 'Check BUILD-7',
    workdir,
    toolSummaries: false,
    permissionMode: 'ask',
    allowRules: ['mcp__files', 'mcp__tracker__lookup'],
    sandboxEnv: { SESSION_FLAVOUR: 'vanilla' },
    mcpServers: {
      files: { command: 'node', args: [server], env: { MCP_GREETING: 'hi' } },
      tracker: { type: 'http', url: tracker.url, headers: { Authorization: 'Bearer tracker-token' } },
      broken: { command: 'definitely-not-a-command' },
    },
  });
  // The failing call is not covered by the allow rules: it waits for a person.
  await stateWhere(handle, (state) => state.pendingApprovals.some((pending) => pending.toolUseId === 'toolu_close'));
  await handle.executeUpdate('approveTool', { args: [{ toolUseId: 'toolu_close', decision: 'allow' }] });
  const result = (await handle.result()) as AgentResult;
  expect(result.reason).toBe('completed');

  const requests = harness.fake.requests.filter((request) => request.body.tools?.length);
  expect(requests).toHaveLength(5);
  // Listed at the start with the servers' schemas; the failed server and the untrusted file offer nothing.
  const first = toolNames(requests[0]!);
  expect(first).toEqual(
    expect.arrayContaining([
      'Read',
      'mcp__files__echo',
      'mcp__files__env',
      'mcp__files__grow',
      'mcp__files__crash',
      'mcp__tracker__lookup',
      'mcp__tracker__close_issue',
    ]),
  );
  expect(
    first.filter((name) => name.includes('broken') || name.includes('repo-server') || name === 'mcp__files__late'),
  ).toEqual([]);
  const echo = requests[0]!.body.tools!.find((tool) => tool.name === 'mcp__files__echo');
  expect(echo?.input_schema).toMatchObject({
    type: 'object',
    properties: { text: { type: 'string', description: 'what to echo' } },
    required: ['text'],
  });

  const turn1 = results(requests[1]!);
  expect(turn1.toolu_echo).toEqual({ text: 'echo: hello', isError: false });
  expect(turn1.toolu_lookup).toEqual({ text: 'BUILD-7: the build is flaky (open)', isError: false });
  expect(tracker.calls[0]).toEqual({ tool: 'lookup', args: { id: 'BUILD-7' }, authorization: 'Bearer tracker-token' });
  // The stdio server ran in the session's sandbox: its own variables and the session's, none of the worker's.
  const env = JSON.parse(turn1.toolu_env!.text) as { names: string[]; greeting: string; cwd: string };
  expect(env.greeting).toBe('hi');
  expect(env.cwd).toBe(workdir);
  expect(env.names).toEqual(expect.arrayContaining(['MCP_GREETING', 'SESSION_FLAVOUR', 'PATH']));
  expect(env.names.filter((name) => /MCP_TEST_WORKER_SECRET|ANTHROPIC|TEMPORAL/.test(name))).toEqual([]);

  // The tool's error result is an is_error tool_result in the next request; the server that
  // changed its tools is listed again before it.
  const turn2 = results(requests[2]!);
  expect(turn2.toolu_close).toEqual({
    text: expect.stringContaining('BUILD-7 cannot be closed: it is locked'),
    isError: true,
  });
  expect(turn2.toolu_grow).toEqual({ text: 'added late', isError: false });
  expect(toolNames(requests[2]!)).toContain('mcp__files__late');

  // A server that dies mid-call: is_error, and the next call starts it again.
  const turn3 = results(requests[3]!);
  expect(turn3.toolu_late).toEqual({ text: 'late: 42', isError: false });
  expect(turn3.toolu_crash!.isError).toBe(true);
  expect(turn3.toolu_crash!.text).toContain('may or may not have taken effect');
  expect(results(requests[4]!).toolu_again).toEqual({ text: 'echo: again', isError: false });

  // Reported, not fatal: the server that could not start, and the untrusted .mcp.json.
  const { entries } = await handle.query<TranscriptPage, [{ fromIndex: number }]>('transcript', { fromIndex: 0 });
  const session = entries.find((entry) => entry.type === 'session');
  expect(session).toMatchObject({ skippedMcpJson: expect.stringContaining('.mcp.json (1 server: repo-server)') });
  const state = await handle.query<AgentState>('state');
  expect(state.mcpServers).toEqual([
    expect.objectContaining({
      name: 'files',
      status: 'connected',
      tools: [
        'mcp__files__echo',
        'mcp__files__env',
        'mcp__files__grow',
        'mcp__files__crash',
        'mcp__files__slow',
        'mcp__files__connect',
        'mcp__files__write_file',
        'mcp__files__late',
      ],
    }),
    expect.objectContaining({
      name: 'tracker',
      status: 'connected',
      tools: ['mcp__tracker__lookup', 'mcp__tracker__close_issue'],
    }),
    { name: 'broken', status: 'failed', tools: [], error: expect.stringContaining('definitely-not-a-command') },
  ]);
  expect(readdirSync(workdir)).not.toContain('pwned');

  // Closing the session closed its servers: no stdio server left running, no HTTP session left open.
  while (processesWith(server).length > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(tracker.openSessions).toBe(0);
});

test('a worker killed mid-call: the MCP call is not made again, and the model is told its outcome is unknown', async () => {
  const crashing = await Harness.start();
  try {
    const workdir = makeRepo({});
    const server = mcpStdioServerBundle(workdir);
    crashing.fake.handler = byTurn([
      reply([toolUse('mcp__files__slow', {}, 'toolu_slow')]),
      reply([text('I will check first.')]),
    ]);
    const worker = await crashing.startWorkerProcess();
    const handle = await crashing.start({
      prompt: 'Start it',
      workdir,
      toolSummaries: false,
      mcpServers: { files: { command: 'node', args: [server] } },
    });
    const log = join(workdir, 'mcp-calls.log');
    // The file appears before its line is written (open, then write): wait for the line, or a
    // worker killed in between leaves an empty log although the call was made.
    while (!existsSync(log) || readFileSync(log, 'utf8') === '')
      await new Promise((resolve) => setTimeout(resolve, 50));
    await killProcess(worker);
    // The server died with its worker (its sandbox dies with its parent).
    while (processesWith(server).length > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    await crashing.startWorkerProcess();
    const result = (await handle.result()) as AgentResult;
    expect(result.reason).toBe('completed');
    const answer = results(crashing.fake.requests.filter((request) => request.body.tools?.length).at(-1)!).toolu_slow!;
    expect(answer.isError).toBe(true);
    expect(answer.text).toContain('was not made again: it may or may not have taken effect');
    expect(readFileSync(log, 'utf8')).toBe('slow started\n');
  } finally {
    await crashing.stop();
  }
});

test("a compaction declares the session's MCP tools too: the turns it summarises called them", async () => {
  // A 30,000-token window: autocompact above 30,000 − 8,192 − 13,000 = 8,808 estimated tokens.
  const files = Object.fromEntries([0, 1, 2, 3, 4, 5].map((n) => [`f${n}.txt`, `${'x'.repeat(79)}\n`.repeat(100)]));
  harness.fake.handler = (request) => {
    if (isCompaction(request))
      return reply([text('<summary>\nSUMMARY-MARKER: looked up BUILD-7, read f0 to f4.\n</summary>')]);
    if (requestText(request).includes('SUMMARY-MARKER')) return reply([text('Done after the summary.')]);
    const turn = turnOf(request);
    return turn === 0
      ? reply([toolUse('mcp__tracker__lookup', { id: 'BUILD-7' })])
      : reply([toolUse('Read', { file_path: `f${turn - 1}.txt` })]);
  };
  const handle = await harness.start({
    prompt: 'Look up BUILD-7, then read every file',
    workdir: makeRepo(files),
    toolSummaries: false,
    contextWindowTokens: 30_000,
    mcpServers: { tracker: { type: 'http', url: tracker.url } },
  });
  const result = (await handle.result()) as AgentResult;
  expect(result).toMatchObject({ reason: 'completed', finalText: 'Done after the summary.' });
  const compaction = harness.fake.requests.find(isCompaction)!;
  expect(JSON.stringify(compaction.body.messages)).toContain('mcp__tracker__lookup');
  expect(toolNames(compaction)).toContain('mcp__tracker__lookup');
});
