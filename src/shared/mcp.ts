/**
 * MCP servers (Model Context Protocol) in Claude Code's format: the input's `mcpServers` and a
 * repository's `.mcp.json` (`{"mcpServers": {...}}`), their tools' names as the model sees them
 * (`mcp__<server>__<tool>`), and what the session knows of each server. Pure: imported by the
 * workflow, the activities and the tests alike.
 */
import type { SandboxRequest } from './sandbox';
import { z } from 'zod';

/** A server's name: it becomes part of tool names and allow rules, so it is kept plain. */
export const MCP_SERVER_NAME = /^[A-Za-z0-9_-]+$/;

const environmentSchema = z.record(z.string(), z.string()).superRefine((env, context) => {
  for (const name of Object.keys(env)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      context.addIssue({ code: 'custom', path: [name], message: 'must be a variable name like API_URL' });
  }
});

/** How long a server may take to start and answer `initialize` (and a listing) unless its `startupTimeoutMs` says. */
export const MCP_STARTUP_TIMEOUT_MS = 30_000;
/** The longest `startupTimeoutMs`: the listing activity's own timeout grows with it. */
export const MCP_STARTUP_TIMEOUT_MAX_MS = 10 * 60_000;

/** Our own field (Claude Code's format has none): how long this server may take to start. */
const startupTimeoutSchema = z
  .number()
  .int('must be a whole number of milliseconds')
  .min(1_000, 'must be at least 1000 (milliseconds)')
  .max(MCP_STARTUP_TIMEOUT_MAX_MS, `must be at most ${MCP_STARTUP_TIMEOUT_MAX_MS} (10 minutes)`);

/** A server the worker starts, inside the session's sandbox, speaking MCP on its stdin and stdout. */
export const mcpStdioServerSchema = z
  .object({
    type: z.literal('stdio').optional(),
    command: z.string().min(1, 'must name the program to run'),
    args: z.array(z.string()).optional(),
    env: environmentSchema.optional(),
    startupTimeoutMs: startupTimeoutSchema.optional(),
  })
  .strict();

/** A server reached over MCP's streamable HTTP transport. */
export const mcpHttpServerSchema = z
  .object({
    type: z.literal('http'),
    url: z
      .string()
      .url('must be an http:// or https:// URL')
      .refine((url) => /^https?:\/\//.test(url), 'must be an http:// or https:// URL'),
    headers: z.record(z.string(), z.string()).optional(),
    startupTimeoutMs: startupTimeoutSchema.optional(),
  })
  .strict();

export const mcpServerSchema = z.union([mcpHttpServerSchema, mcpStdioServerSchema]);

export const mcpServersSchema = z.record(z.string(), mcpServerSchema).superRefine((servers, context) => {
  for (const name of Object.keys(servers)) {
    if (!MCP_SERVER_NAME.test(name))
      context.addIssue({
        code: 'custom',
        path: [name],
        message: 'a server name must be letters, digits, _ and - only',
      });
    else if (name.includes('__'))
      context.addIssue({
        code: 'custom',
        path: [name],
        message: 'a server name must not contain "__" (it separates server and tool in mcp__<server>__<tool>)',
      });
  }
});

/** `.mcp.json` at the workdir's root: other fields are not ours. */
export const mcpJsonSchema = z.looseObject({ mcpServers: mcpServersSchema });

export type McpServerConfig = z.infer<typeof mcpServerSchema>;
export type McpServers = Record<string, McpServerConfig>;

/** One of a server's tools as offered to the model (stored in the content store, never in history). */
export interface McpToolDefinition {
  /** `mcp__<server>__<tool>`, cut to what the Messages API accepts. */
  name: string;
  server: string;
  /** The tool's own name on its server (what `tools/call` takes). */
  tool: string;
  description: string;
  /** The server's JSON Schema of the tool's arguments. */
  inputSchema: Record<string, unknown>;
}

/**
 * The catalog the listing stores: the tools, and the servers that offer resources (their
 * `initialize` capabilities name `resources`): ListMcpResourcesTool and ReadMcpResourceTool are
 * offered only when there is one. Stored as the bare tool array when none does (as before).
 */
export type StoredMcpCatalog = McpToolDefinition[] | { tools: McpToolDefinition[]; resourceServers: string[] };

/** What the session knows of one server: the `state` query's `mcpServers`. */
export interface McpServerStatus {
  name: string;
  status: 'connected' | 'failed';
  /** The model's names of its tools. */
  tools: string[];
  /** Why it could not be started or listed. */
  error?: string;
}

/**
 * The session's MCP servers as the loop carries them: their configuration (input and trusted
 * `.mcp.json`), the catalog of their tools (by reference) and their status. Absent in sessions
 * without MCP servers, so nothing of this reaches their history.
 */
export interface McpSession {
  servers: McpServers;
  toolsRef: string;
  status: McpServerStatus[];
  /** A call's server said its tool list changed: the workflow lists again before the next model call. */
  listChanged?: true;
}

/** The tools the Messages API accepts: letters, digits, `_` and `-`, at most 64 characters. */
const API_NAME_MAX = 64;

/** `mcp__<server>__<tool>`, as Claude Code names them (characters the API refuses become `_`). */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, API_NAME_MAX);
}

/** The allow rules that approve every call of a server's tool besides its own name: `mcp__server` and `mcp__server__*`. */
export function mcpRuleNames(server: string): string[] {
  return [`mcp__${server}`, `mcp__${server}__*`];
}

/** Input servers win over the repository's servers of the same name. */
export function mergeMcpServers(repository: McpServers | undefined, input: McpServers | undefined): McpServers {
  return { ...(repository ?? {}), ...(input ?? {}) };
}

/** How long `config` may take to start (its `startupTimeoutMs`, else the default). */
export function mcpStartupTimeoutMs(config: McpServerConfig): number {
  return config.startupTimeoutMs ?? MCP_STARTUP_TIMEOUT_MS;
}

/** The longest start-up any of `servers` may take. */
export function longestMcpStartupMs(servers: McpServers): number {
  return Math.max(MCP_STARTUP_TIMEOUT_MS, ...Object.values(servers).map(mcpStartupTimeoutMs));
}

/** A server's configuration as one line for people (never its environment or headers: they may hold secrets). */
export function describeMcpServer(config: McpServerConfig): string {
  return config.type === 'http' ? config.url : [config.command, ...(config.args ?? [])].join(' ');
}

/** Activity `listMcpTools`: the session's servers connected (on its host) and their tools listed. */
export interface ListMcpToolsInput {
  sessionId: string;
  workdir: string;
  servers: McpServers;
  sandbox?: SandboxRequest;
}

export interface ListMcpToolsOutput {
  /** The catalog (McpToolDefinition[]) in the content store: schemas stay out of history. */
  toolsRef: string;
  status: McpServerStatus[];
}

/** Activity `callMcpTool`: one `tool_use` of an MCP tool. */
export interface CallMcpToolInput {
  sessionId: string;
  toolUseId: string;
  /** The model's name of the tool (`mcp__server__tool`). */
  name: string;
  server: string;
  /** The server's configuration, so any worker of the host can (re)start it. */
  config: McpServerConfig;
  /** The tool's name on its server. */
  tool: string;
  arguments: unknown;
  workdir: string;
  sandbox?: SandboxRequest;
  /** What the person who approved the call added: it follows the result. */
  approvalFeedback?: string;
  /** The call had started on a host that was lost: it is not made again (its outcome is unknown). */
  resumed?: true;
  /**
   * The session's last snapshot, for a call to a stdio server (it runs in the workdir and may
   * write there): the call snapshots the workspace over it when done, as a Write does.
   */
  snapshotRef?: string;
}

/** What a planned MCP call carries in its rules (src/shared/activity-io.ts ToolRules). */
export interface McpCallRules {
  /** The call goes to an MCP server (activity `callMcpTool`) rather than a built-in tool. */
  mcp?: { server: string; tool: string };
  /** Names of bare allow rules that approve this call besides its own name (`mcp__server`). */
  allowedBy?: string[];
}

/** What prepareSession adds for MCP: the trusted `.mcp.json`'s servers, or the note that it was skipped; and what listing found. */
export interface McpPrepared {
  repoMcpServers?: McpServers;
  /** `.mcp.json (2 servers)`: found and not trusted, so not started (shown in the transcript). */
  skippedMcpJson?: string;
  /** The servers listed when the session was prepared (absent without MCP servers). */
  mcp?: McpSession;
}

/** What a model call adds for MCP (src/shared/activity-io.ts CallModelInput). */
export interface McpModelMark {
  /** The session's MCP tools (a stored McpToolDefinition[]), offered after the built-in ones. */
  mcpToolsRef?: string;
}

/** What the transcript's `session` entry says of MCP: a skipped `.mcp.json`, and the servers as listed. */
export interface McpSessionNote {
  skippedMcpJson?: string;
  mcpServers?: McpServerStatus[];
}

/** That note, from what the session was prepared with (nothing for sessions without MCP). */
export function mcpSessionNote(prepared: McpPrepared): McpSessionNote {
  return {
    ...(prepared.skippedMcpJson ? { skippedMcpJson: prepared.skippedMcpJson } : {}),
    ...(prepared.mcp ? { mcpServers: prepared.mcp.status } : {}),
  };
}
