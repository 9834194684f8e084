/**
 * MCP servers for the tests, made with the SDK's server classes: the stdio server bundled into a
 * session's workdir (it runs in the sandbox, which cannot see this repository's node_modules),
 * and a streamable-HTTP server in the test process.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { PROJECT_ROOT } from './paths';

/** The stdio server as one self-contained CommonJS file (it needs nothing from node_modules). */
export function mcpStdioServerSource(): string {
  const built = buildSync({
    entryPoints: [join(PROJECT_ROOT, 'test', 'support', 'mcp-stdio-server.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    logLevel: 'error',
  });
  return built.outputFiles[0]!.text;
}

/** Writes the stdio server into `dir`; returns its path. */
export function mcpStdioServerBundle(dir: string, name = 'mcp-server.cjs'): string {
  const path = join(dir, name);
  writeFileSync(path, mcpStdioServerSource());
  return path;
}

/** An issue tracker over streamable HTTP: `lookup` finds an issue, `close_issue` always fails (isError). */
export class McpHttpServer {
  readonly calls: { tool: string; args: unknown; authorization?: string }[] = [];
  private readonly transports = new Map<string, StreamableHTTPServerTransport>();

  private constructor(private readonly http: Server) {}

  get url(): string {
    return `http://127.0.0.1:${(this.http.address() as AddressInfo).port}/mcp`;
  }

  static async start(): Promise<McpHttpServer> {
    const server = new McpHttpServer(createServer((request, response) => void server.handle(request, response)));
    await new Promise<void>((resolve) => server.http.listen(0, '127.0.0.1', resolve));
    return server;
  }

  private mcpServer(authorization: string | undefined): McpServer {
    const mcp = new McpServer({ name: 'test-tracker', version: '1.0.0' });
    mcp.registerTool(
      'lookup',
      { description: 'Looks an issue up', inputSchema: { id: z.string().regex(/^[A-Z]+-\d+$/) } },
      ({ id }) => {
        this.calls.push({ tool: 'lookup', args: { id }, ...(authorization ? { authorization } : {}) });
        return { content: [{ type: 'text', text: `${id}: the build is flaky (open)` }] };
      },
    );
    mcp.registerTool('close_issue', { description: 'Closes an issue', inputSchema: { id: z.string() } }, ({ id }) => {
      this.calls.push({ tool: 'close_issue', args: { id } });
      return { isError: true, content: [{ type: 'text', text: `${id} cannot be closed: it is locked` }] };
    });
    return mcp;
  }

  private async handle(request: IncomingMessage, response: import('node:http').ServerResponse): Promise<void> {
    const body = request.method === 'POST' ? JSON.parse(await readBody(request)) : undefined;
    const sessionId = request.headers['mcp-session-id'] as string | undefined;
    let transport = sessionId ? this.transports.get(sessionId) : undefined;
    if (!transport && isInitializeRequest(body)) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void this.transports.set(id, created),
      });
      created.onclose = () => {
        if (created.sessionId) this.transports.delete(created.sessionId);
      };
      await this.mcpServer(request.headers.authorization).connect(created);
      transport = created;
    }
    if (!transport) {
      response
        .writeHead(404)
        .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'no such session' }, id: null }));
      return;
    }
    await transport.handleRequest(request, response, body);
  }

  /** MCP sessions open now (a client that closed ended its own). */
  get openSessions(): number {
    return this.transports.size;
  }

  async close(): Promise<void> {
    for (const transport of this.transports.values()) await transport.close();
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    request
      .setEncoding('utf8')
      .on('data', (chunk: string) => (text += chunk))
      .on('end', () => resolve(text))
      .on('error', reject);
  });
}
