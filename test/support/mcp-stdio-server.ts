/**
 * A small MCP server on stdio, made with the SDK's server classes, for the MCP tests. The tests
 * bundle it into one file in the session's workdir (mcpStdioServerBundle), so that it runs as a
 * real session's server does: inside the session's sandbox, which sees nothing of this repository.
 *
 * Tools: `echo` (its text back), `env` (the names of the variables it sees, and MCP_GREETING),
 * `grow` (adds the tool `late` and says the list changed), `crash` (the server dies mid-call),
 * `slow` (notes in `mcp-calls.log` in its working directory that it started, then never answers),
 * `connect` (tries TCP connections to 127.0.0.1 ports, directly and through its HTTP_PROXY, and says
 * which answered: what a server in the sandbox can reach), `write_file` (writes a file in its working
 * directory: what the session's snapshots must see).
 *
 * Resources (so its capabilities include `resources`): `notes://readme` (markdown text) and
 * `notes://pixel.png` (a one-pixel PNG, as a blob).
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer(
  { name: 'test-files', version: '1.0.0' },
  { capabilities: { tools: { listChanged: true } } },
);

server.registerTool(
  'echo',
  { description: 'Echoes its text back', inputSchema: { text: z.string().describe('what to echo') } },
  ({ text }) => ({
    content: [{ type: 'text', text: `echo: ${text}` }],
  }),
);

server.registerTool('env', { description: 'The environment variables the server sees' }, () => ({
  content: [
    {
      type: 'text',
      text: JSON.stringify({
        names: Object.keys(process.env).sort(),
        greeting: process.env.MCP_GREETING ?? null,
        cwd: process.cwd(),
      }),
    },
  ],
}));

server.registerTool('grow', { description: 'Adds the tool late' }, () => {
  server.registerTool(
    'late',
    { description: 'A tool added while the session runs', inputSchema: { n: z.number() } },
    ({ n }) => ({
      content: [{ type: 'text', text: `late: ${n * 2}` }],
    }),
  );
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

/** Whether 127.0.0.1:port accepts a TCP connection (within a second). */
function direct(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, timeout: 1000 });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
}

/** The status the proxy answers a CONNECT to 127.0.0.1:port with (0: no proxy to ask). */
function throughProxy(port: number): Promise<number> {
  const proxy = process.env.HTTP_PROXY ? new URL(process.env.HTTP_PROXY) : undefined;
  if (!proxy) return Promise.resolve(0);
  return new Promise((resolve) => {
    const asking = request({
      host: proxy.hostname,
      port: Number(proxy.port),
      method: 'CONNECT',
      path: `127.0.0.1:${port}`,
      timeout: 2000,
    });
    asking.once('connect', (response, socket) => (socket.destroy(), resolve(response.statusCode ?? 0)));
    asking.once('error', () => resolve(-1));
    asking.once('timeout', () => (asking.destroy(), resolve(-1)));
    asking.end();
  });
}

server.registerTool(
  'connect',
  { description: 'Tries 127.0.0.1 ports directly and through the proxy', inputSchema: { ports: z.array(z.number()) } },
  async ({ ports }) => {
    const results: Record<number, { direct: boolean; proxy: number }> = {};
    for (const port of ports) results[port] = { direct: await direct(port), proxy: await throughProxy(port) };
    return { content: [{ type: 'text', text: JSON.stringify(results) }] };
  },
);

server.registerTool(
  'write_file',
  { description: 'Writes a file in its working directory', inputSchema: { path: z.string(), content: z.string() } },
  ({ path, content }) => {
    writeFileSync(path, content);
    return { content: [{ type: 'text', text: `wrote ${path}` }] };
  },
);

server.registerResource(
  'readme',
  'notes://readme',
  { mimeType: 'text/markdown', description: 'How the project is built' },
  (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: '# Notes\n\nBuild with `make all`.' }] }),
);

/** A one-pixel PNG. */
export const PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

server.registerResource('pixel', 'notes://pixel.png', { mimeType: 'image/png' }, (uri) => ({
  contents: [{ uri: uri.href, mimeType: 'image/png', blob: PIXEL_PNG }],
}));

void server.connect(new StdioServerTransport());
