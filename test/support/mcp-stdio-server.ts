/**
 * A small MCP server on stdio, made with the SDK's server classes, for the MCP tests. The tests
 * bundle it into one file in the session's workdir (mcpStdioServerBundle), so that it runs as a
 * real session's server does: inside the session's sandbox, which sees nothing of this repository.
 *
 * Tools: `echo` (its text back), `env` (the names of the variables it sees, and MCP_GREETING),
 * `grow` (adds the tool `late` and says the list changed), `crash` (the server dies mid-call),
 * `slow` (notes in `mcp-calls.log` in its working directory that it started, then never answers).
 */
import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'test-files', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });

server.registerTool('echo', { description: 'Echoes its text back', inputSchema: { text: z.string().describe('what to echo') } }, ({ text }) => ({
  content: [{ type: 'text', text: `echo: ${text}` }],
}));

server.registerTool('env', { description: 'The environment variables the server sees' }, () => ({
  content: [{ type: 'text', text: JSON.stringify({ names: Object.keys(process.env).sort(), greeting: process.env.MCP_GREETING ?? null, cwd: process.cwd() }) }],
}));

server.registerTool('grow', { description: 'Adds the tool late' }, () => {
  server.registerTool('late', { description: 'A tool added while the session runs', inputSchema: { n: z.number() } }, ({ n }) => ({
    content: [{ type: 'text', text: `late: ${n * 2}` }],
  }));
  // registerTool tells connected clients that the list changed.
  return { content: [{ type: 'text', text: 'added late' }] };
});

server.registerTool('crash', { description: 'Dies in the middle of the call' }, () => {
  process.exit(3);
});

server.registerTool('slow', { description: 'Starts something and takes forever' }, async () => {
  appendFileSync('mcp-calls.log', 'slow started\n');
  return new Promise<never>(() => {});
});

void server.connect(new StdioServerTransport());
