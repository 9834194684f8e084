/**
 * The MCP connections of the sessions a worker serves, kept in the worker process: one per
 * session and server, opened on first use (listing or a call), opened again when the server died
 * (a stdio server that exited, an HTTP session that broke), and closed when the session closes
 * (closeSession) or the worker exits. Several calls that need the same connection at once share
 * its opening.
 *
 * Connections are a cache, never state the session depends on: a worker that dies takes its
 * servers with it (stdio servers die with their sandbox), and the next worker opens its own.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { SandboxRequest } from '../../shared/sandbox';
import { MCP_STARTUP_TIMEOUT_MS, type McpServerConfig, mcpStartupTimeoutMs } from '../../shared/mcp';
import type { CommandSandbox } from '../../sandbox/command-sandbox';
import { withProjectDir } from '../../sandbox/command-environment';
import type { McpPackages, ServerLaunch } from '../../sandbox/mcp-packages';
import { SandboxedStdioTransport } from './sandboxed-stdio';

/**
 * A connection unused this long is closed. closeSession closes a session's connections on the
 * worker it runs on; with several workers on one host (or the shared queue), others may hold some
 * too, and this closes them. Longer than a call may take (10 minutes), so no call loses its server.
 */
export const MCP_IDLE_CLOSE_MS = 30 * 60_000;

export interface McpConnection {
  readonly client: Client;
  /** The server said its tool list changed (notifications/tools/list_changed) since this was last cleared. */
  listChanged: boolean;
  closed: boolean;
  /** The server's `startupTimeoutMs` (or the default): listings wait as long. */
  startupTimeoutMs: number;
}

/** Where a session's server runs: its workdir, and what the session asks of its sandbox. */
export interface McpPlace {
  workdir: string;
  sandbox?: SandboxRequest;
}

interface PoolEntry {
  configKey: string;
  lastUsed: number;
  opening: Promise<McpConnection & { transport: Transport }>;
}

export class McpPool {
  private readonly entries = new Map<string, PoolEntry>();
  private readonly stdio = new Set<SandboxedStdioTransport>();

  constructor(
    private readonly sandbox: CommandSandbox,
    private readonly idleCloseMs = MCP_IDLE_CLOSE_MS,
    /** Installs npx servers' packages once, for every session of the host (AGENT_MCP_PACKAGE_DIR). */
    private readonly packages?: McpPackages,
  ) {
    setInterval(() => void this.closeIdle(Date.now()), Math.min(60_000, idleCloseMs)).unref();
    // A worker that exits (tests, shutdown) leaves no server behind; bubblewrap's --die-with-parent
    // covers a killed one, the unconfined watchdog too.
    process.once('exit', () => {
      for (const transport of this.stdio) transport.kill();
    });
  }

  /** The session's connection to `server`: the open one, or a new one when there is none, it died, or its configuration changed. */
  async connect(sessionId: string, server: string, config: McpServerConfig, place: McpPlace): Promise<McpConnection> {
    const key = `${sessionId}\u0000${server}`;
    const configKey = JSON.stringify({ config, place });
    const existing = this.entries.get(key);
    if (existing) {
      const connection = await existing.opening.catch(() => undefined);
      if (connection && !connection.closed && existing.configKey === configKey) {
        existing.lastUsed = Date.now();
        return connection;
      }
      if (this.entries.get(key) === existing) this.entries.delete(key);
      if (connection && !connection.closed) await connection.client.close().catch(() => {});
      // Another caller may have opened it again meanwhile.
      const again = this.entries.get(key);
      if (again) return this.connect(sessionId, server, config, place);
    }
    const entry: PoolEntry = { configKey, lastUsed: Date.now(), opening: this.open(server, config, place) };
    this.entries.set(key, entry);
    entry.opening.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return entry.opening;
  }

  /** Every tool of a connected server (all pages). */
  async listTools(connection: McpConnection, signal?: AbortSignal): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const options = { timeout: connection.startupTimeoutMs, ...(signal ? { signal } : {}) };
      const page = await connection.client.listTools(cursor ? { cursor } : {}, options);
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    connection.listChanged = false;
    return tools;
  }

  /** The session ended: its servers are closed (stdio servers killed, HTTP sessions ended). */
  async closeSession(sessionId: string): Promise<void> {
    const closing: Promise<void>[] = [];
    for (const [key, entry] of this.entries) {
      if (!key.startsWith(`${sessionId}\u0000`)) continue;
      this.entries.delete(key);
      closing.push(entry.opening.then((connection) => closeConnection(connection)).catch(() => {}));
    }
    await Promise.all(closing);
  }

  /** Closes the connections unused for `idleCloseMs` before `now`. */
  async closeIdle(now: number): Promise<void> {
    const closing: Promise<void>[] = [];
    for (const [key, entry] of this.entries) {
      if (now - entry.lastUsed < this.idleCloseMs) continue;
      this.entries.delete(key);
      closing.push(entry.opening.then((connection) => closeConnection(connection)).catch(() => {}));
    }
    await Promise.all(closing);
  }

  /** Servers open now (tests check that none outlives its session). */
  get size(): number {
    return this.entries.size;
  }

  private async open(
    server: string,
    config: McpServerConfig,
    place: McpPlace,
  ): Promise<McpConnection & { transport: Transport }> {
    const startupTimeoutMs = mcpStartupTimeoutMs(config);
    const launch =
      config.type === 'http'
        ? undefined
        : await this.packages?.launch(config.command, config.args ?? [], startupTimeoutMs);
    const transport = this.transportFor(config, place, launch);
    const client = new Client({ name: 'durable-agent', version: '0.1.0' }, { capabilities: {} });
    const connection = { client, transport, listChanged: false, closed: false, startupTimeoutMs };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      connection.listChanged = true;
    });
    client.onclose = () => {
      connection.closed = true;
      if (transport instanceof SandboxedStdioTransport) this.stdio.delete(transport);
    };
    try {
      await client.connect(transport, { timeout: startupTimeoutMs });
    } catch (error) {
      await transport.close().catch(() => {});
      const stderr =
        transport instanceof SandboxedStdioTransport && transport.stderr
          ? ` (stderr: ${transport.stderr.split('\n').slice(-5).join(' | ')})`
          : '';
      throw new Error(`${startupFailure(server, startupTimeoutMs, error)}${stderr}`);
    }
    return connection;
  }

  private transportFor(config: McpServerConfig, place: McpPlace, launch?: ServerLaunch): Transport {
    if (config.type === 'http') {
      // The worker connects to an HTTP server itself, outside any sandbox: a session without network gets none this way either.
      if (this.sandbox.network(place.sandbox).mode === 'none')
        throw new Error('the session has no network (network: "none"), so its HTTP MCP servers are not connected');
      return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers ?? {} } });
    }
    const transport = new SandboxedStdioTransport({
      command: launch?.command ?? config.command,
      args: launch?.args ?? config.args ?? [],
      readOnlyBinds: launch?.readOnlyBinds ?? [],
      workdir: place.workdir,
      sandbox: this.sandbox,
      // The server sees the session's variables, CLAUDE_PROJECT_DIR (the workdir) and its own, nothing of the worker's.
      session: { ...place.sandbox, env: { ...withProjectDir(place.sandbox, place.workdir).env, ...config.env } },
    });
    this.stdio.add(transport);
    return transport;
  }
}

/** Why a server did not start; a timeout names the server and the field that gives it longer. */
function startupFailure(server: string, timeoutMs: number, error: unknown): string {
  const message = (error as Error).message;
  if (!(error instanceof McpError && error.code === ErrorCode.RequestTimeout)) return message;
  return (
    `MCP server "${server}" did not start within ${timeoutMs} ms (${message}): ` +
    `give it longer with "startupTimeoutMs" in its configuration (default ${MCP_STARTUP_TIMEOUT_MS}, at most 600000)`
  );
}

async function closeConnection(connection: McpConnection & { transport: Transport }): Promise<void> {
  if (connection.transport instanceof StreamableHTTPClientTransport)
    await connection.transport.terminateSession().catch(() => {});
  await connection.client.close().catch(() => {});
}
