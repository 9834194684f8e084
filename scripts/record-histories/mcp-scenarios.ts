/** The recorded path of a session with MCP servers (issue 15, item 3). */
import { byTurn, reply, text, toolUse } from '../../test/support/fake-anthropic';
import { McpHttpServer, mcpStdioServerSource } from '../../test/support/mcp-servers';
import type { Scenario } from './scenario';

export const mcpScenarios: Scenario[] = [
  {
    // A stdio server (bundled into the workdir, run in the sandbox), an HTTP server, one that
    // cannot start and an untrusted .mcp.json; a call that fails (is_error), a server that changes
    // its tools (listed again before the next model call), and one that dies mid-call.
    name: 'mcp-tools',
    files: {
      'mcp-server.cjs': mcpStdioServerSource(),
      '.mcp.json': JSON.stringify({ mcpServers: { 'repo-server': { command: 'true' } } }),
    },
    prepareInput: async () => {
      const tracker = await McpHttpServer.start();
      return {
        toolSummaries: false,
        mcpServers: {
          files: { command: 'node', args: ['mcp-server.cjs'], env: { MCP_GREETING: 'hi' } },
          tracker: { type: 'http', url: tracker.url },
          broken: { command: 'definitely-not-a-command' },
        },
      };
    },
    handler: byTurn([
      reply([toolUse('mcp__files__echo', { text: 'hello' }), toolUse('mcp__tracker__lookup', { id: 'BUILD-7' })]),
      reply([toolUse('mcp__tracker__close_issue', { id: 'BUILD-7' }), toolUse('mcp__files__grow', {})]),
      reply([toolUse('mcp__files__late', { n: 21 }), toolUse('mcp__files__crash', {})]),
      reply([text('BUILD-7 is locked.')]),
    ]),
  },
  {
    // Issue 23: a stdio server's tool writes a file in the workdir; the call snapshots the
    // workspace when done (patched mcp-call-snapshot), so the turn's snapshot holds the file.
    name: 'mcp-writes',
    files: { 'mcp-server.cjs': mcpStdioServerSource() },
    input: { toolSummaries: false, mcpServers: { files: { command: 'node', args: ['mcp-server.cjs'] } } },
    handler: byTurn([
      reply([toolUse('mcp__files__write_file', { path: 'from-mcp.txt', content: 'written by the server\n' })]),
      reply([text('Written.')]),
    ]),
  },
];
