/**
 * MCP servers as they start and work in a real session (issue 23): an `npx` server's package is
 * installed once by the worker (from a stand-in registry reached through the egress proxy) and a
 * second session starts it without fetching anything; what a stdio server writes in the workdir
 * is in the turn's snapshot, the result's `filesChanged` and `durable-agent diff`.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { parseAllowedDomains } from '../../src/sandbox/allowed-domains';
import type { AgentResult, AgentState, TranscriptPage } from '../../src/shared/contract';
import { byTurn, lastToolResults, reply, text, toolResultText, toolUse } from '../support/fake-anthropic';
import { fileHarness, Harness, makeRepo } from '../support/harness';
import { mcpStdioServerBundle, mcpStdioServerSource } from '../support/mcp-servers';
import { NpmRegistry, packPackage } from '../support/npm-registry';
import { scratchDir } from '../support/paths';

jest.setTimeout(120_000);

const harness = fileHarness();

test('a file an MCP tool writes is in the turn’s snapshot, the result’s filesChanged and the diff', async () => {
  const workdir = makeRepo({ 'README.md': 'hello\n' });
  const server = mcpStdioServerBundle(workdir);
  harness.fake.handler = byTurn([
    reply([
      toolUse('mcp__files__write_file', { path: 'from-mcp.txt', content: 'written by the server\n' }, 'toolu_write'),
    ]),
    reply([text('Written.')]),
  ]);
  const handle = await harness.start({
    prompt: 'Write it with the server',
    workdir,
    toolSummaries: false,
    mcpServers: { files: { command: 'node', args: [server] } },
  });
  const result = (await handle.result()) as AgentResult;
  expect(result.reason).toBe('completed');
  const changes = result.filesChanged?.map(({ path, change }) => `${change} ${path}`);
  expect(changes).toContain('added from-mcp.txt');

  const { entries } = await handle.query<TranscriptPage, [{ fromIndex: number }]>('transcript', { fromIndex: 0 });
  expect(entries.filter((entry) => entry.type === 'snapshot' && entry.turn === 1)).toEqual([
    expect.objectContaining({ filesChanged: 1, ref: expect.any(String) }),
  ]);
  const diff = await harness.cli(['diff', handle.workflowId, '--turn', '1']);
  expect(diff.stdout).toContain('--- /dev/null\n+++ b/from-mcp.txt');
  expect(diff.stdout).toContain('+written by the server\n');
});

/** How long the session's listMcpTools activity ran (started to completed), from its history. */
async function listingMs(handle: WorkflowHandle): Promise<number> {
  const { events } = await handle.fetchHistory();
  const scheduled = events!.find(
    (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'listMcpTools',
  )!;
  const started = events!.find(
    (event) => event.activityTaskStartedEventAttributes?.scheduledEventId?.toString() === scheduled.eventId!.toString(),
  )!;
  const completed = events!.find(
    (event) =>
      event.activityTaskCompletedEventAttributes?.scheduledEventId?.toString() === scheduled.eventId!.toString(),
  )!;
  const millis = (time: typeof started.eventTime) =>
    Number(time!.seconds) * 1000 + Math.floor((time!.nanos ?? 0) / 1e6);
  return millis(completed.eventTime) - millis(started.eventTime);
}

test('an npx server’s package is installed once by the worker: the second session lists its tools without fetching it', async () => {
  const dir = scratchDir('npm-packages');
  const packed = packPackage(
    dir,
    'mcp-test-server',
    { 'server.cjs': `#!/usr/bin/env node\n${mcpStdioServerSource()}` },
    'server.cjs',
  );
  const registry = await NpmRegistry.start([packed]);
  // Under the system's temporary directory, not the checkout: the sandbox's user must reach the
  // package directory (docs/mcp.md), and a clone may sit under a 0700 directory.
  const packageDir = mkdtempSync(join(tmpdir(), 'mcp-package-cache-'));
  chmodSync(packageDir, 0o755);
  // The worker's npm settings, passed to the install's sandbox (never the session's): the stand-in
  // registry, reached through the egress proxy.
  process.env.npm_config_registry = registry.url;
  const harness = await Harness.start(byTurn([reply([text('Listed.')])]));
  try {
    const base = harness.workerConfig().sandbox;
    await harness.startWorker({
      mcpPackageDir: packageDir,
      sandbox: {
        ...base,
        passEnv: [...base.passEnv, 'npm_config_registry'],
        allowedDomains: parseAllowedDomains([`127.0.0.1:${registry.port}`], 'test'),
      },
    });
    const session = async (handler = byTurn([reply([text('Listed.')])])) => {
      harness.fake.handler = handler;
      const handle = await harness.start({
        prompt: 'List the tools',
        workdir: makeRepo({}),
        toolSummaries: false,
        mcpServers: { pkg: { command: 'npx', args: ['-y', 'mcp-test-server'], startupTimeoutMs: 120_000 } },
      });
      expect(await handle.result()).toMatchObject({ reason: 'completed' });
      const state = await handle.query<AgentState>('state');
      expect(state.mcpServers).toEqual([
        expect.objectContaining({
          name: 'pkg',
          status: 'connected',
          tools: expect.arrayContaining(['mcp__pkg__echo']),
        }),
      ]);
      return handle;
    };

    const first = await session();
    const fetched = [...registry.requests];
    expect(fetched).toEqual(
      expect.arrayContaining(['GET /mcp-test-server', 'GET /mcp-test-server/-/mcp-test-server-1.0.0.tgz']),
    );
    // Installed in a directory of its own, beside the worker's record of it; nothing half-done left.
    expect(readdirSync(packageDir).filter((name) => name.startsWith('.install-'))).toEqual([]);
    expect(readdirSync(packageDir).filter((name) => name.endsWith('.json'))).toHaveLength(1);

    // The second session's server sees the package read-only: what it plants there reaches no one.
    const key = readdirSync(packageDir).find((name) => !name.endsWith('.json'))!;
    const planted = `/run/durable-agent/mcp-packages/${key}/node_modules/.bin/planted`;
    const second = await session(
      byTurn([
        reply([toolUse('mcp__pkg__write_file', { path: planted, content: 'x' }, 'toolu_plant')]),
        reply([text('Tried.')]),
      ]),
    );
    expect(registry.requests).toEqual(fetched);
    const plantResult = lastToolResults(harness.fake.requests.at(-1)!).find(
      (block) => block.tool_use_id === 'toolu_plant',
    )!;
    expect(plantResult.is_error).toBe(true);
    expect(toolResultText(plantResult)).toContain('EROFS');
    expect(existsSync(join(packageDir, key, 'node_modules', '.bin', 'planted'))).toBe(false);
    console.log(
      `npx MCP server listing: first session ${await listingMs(first)} ms, second ${await listingMs(second)} ms`,
    );
  } finally {
    delete process.env.npm_config_registry;
    await harness.stop();
    await registry.close();
    rmSync(packageDir, { recursive: true, force: true });
  }
});
