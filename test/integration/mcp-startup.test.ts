/**
 * MCP servers as they start and work in a real session (issue 23): what a stdio server writes in
 * the workdir is in the turn's snapshot, the result's `filesChanged` and `durable-agent diff`.
 */
import type { AgentResult, TranscriptPage } from '../../src/shared/contract';
import { byTurn, reply, text, toolUse } from '../support/fake-anthropic';
import { fileHarness, makeRepo } from '../support/harness';
import { mcpStdioServerBundle } from '../support/mcp-servers';

jest.setTimeout(120_000);

const harness = fileHarness();

test('a file an MCP tool writes is in the turn’s snapshot, the result’s filesChanged and the diff', async () => {
  const workdir = makeRepo({ 'README.md': 'hello\n' });
  const server = mcpStdioServerBundle(workdir);
  harness.fake.handler = byTurn([
    reply([toolUse('mcp__files__write_file', { path: 'from-mcp.txt', content: 'written by the server\n' }, 'toolu_write')]),
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
