/**
 * The MCP activities, run on the session's host (where its stdio servers live, in its sandbox):
 * `listMcpTools` connects the session's servers and stores the catalog of their tools;
 * `callMcpTool` makes one `tool_use` of an MCP tool.
 *
 * Nothing a server does fails the session: a server that cannot start is reported as `failed`
 * (and its tools are not offered), a failing call is an `is_error` result for the model.
 */
import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { RunToolOutput } from '../../shared/activity-io';
import type { StoredMedia } from '../../shared/conversation';
import { toolUseError } from '../../shared/conversation';
import { TOOL_RESULT_MAX_CHARS } from '../../shared/limits';
import {
  type CallMcpToolInput,
  describeMcpServer,
  type ListMcpToolsInput,
  type ListMcpToolsOutput,
  type McpServerConfig,
  type McpServerStatus,
  type McpToolDefinition,
  mcpToolName,
  type StoredMcpCatalog,
} from '../../shared/mcp';
import { CallProgress, whileHeartbeating } from '../heartbeat';
import { type ContentStore, putJson, storeText } from '../../store/content-store';
import { snapshotOver } from '../workspace/workspace-activities';
import type { McpConnection, McpPlace, McpPool } from './mcp-pool';

/** A call that takes longer is given up (Claude Code's default is as generous). */
export const MCP_CALL_TIMEOUT_MS = 10 * 60_000;

/** `callMcpTool`'s output: the result, and whether the server said its tool list changed. */
export type CallMcpToolOutput = RunToolOutput & { toolsChanged?: true };

interface McpActivityDeps {
  store: ContentStore;
  pool: McpPool;
}

export function createMcpActivities(deps: McpActivityDeps) {
  return {
    listMcpTools: (input: ListMcpToolsInput): Promise<ListMcpToolsOutput> => listMcpTools(deps, input),

    /**
     * One call. MCP tools are not assumed idempotent (a ticket filed, a row written): a retry of
     * this activity means its first attempt's worker died or lost its heartbeat mid-call, when the
     * request may well have reached the server. So a retry does not call again; it tells the
     * model, as an error result, that the call's outcome is unknown (the retry policy allows just
     * that one retry). Everything else — the server not starting, dying mid-call, an error result,
     * invalid arguments, a timeout — is an `is_error` result too, never a retry.
     */
    callMcpTool: (input: CallMcpToolInput): Promise<CallMcpToolOutput> => callMcpTool(deps, input),
  };
}

async function listMcpTools({ store, pool }: McpActivityDeps, input: ListMcpToolsInput): Promise<ListMcpToolsOutput> {
  const signal = Context.current().cancellationSignal;
  const place = { workdir: input.workdir, ...(input.sandbox ? { sandbox: input.sandbox } : {}) };
  const listing = new CallProgress('MCP servers', `list the tools of ${Object.keys(input.servers).join(', ')}`);
  const listed = await whileHeartbeating(
    () =>
      Promise.all(
        Object.entries(input.servers).map(([name, config]) =>
          listServerTools(pool, input.sessionId, name, config, place, signal),
        ),
      ),
    listing,
  );
  // Two tools that come out with one name (cut, or characters replaced): the first is offered.
  const seen = new Set<string>();
  const tools = listed.flatMap(({ tools }) => tools).filter((tool) => !seen.has(tool.name) && seen.add(tool.name));
  // The servers that offer resources: the resource tools are offered when there is one.
  const resourceServers = listed.filter((server) => server.resources).map(({ status }) => status.name);
  const catalog: StoredMcpCatalog = resourceServers.length ? { tools, resourceServers } : tools;
  return { toolsRef: await putJson(store, catalog), status: listed.map(({ status }) => status) };
}

/** One server's tools and status: a server that cannot start or list is `failed`, not an error. */
async function listServerTools(
  pool: McpPool,
  sessionId: string,
  name: string,
  config: McpServerConfig,
  place: McpPlace,
  signal: AbortSignal,
): Promise<{ status: McpServerStatus; tools: McpToolDefinition[]; resources?: true }> {
  try {
    const connection = await pool.connect(sessionId, name, config, place);
    // A server may offer resources and no tools: it has no tools to list.
    const offers = connection.client.getServerCapabilities();
    const tools =
      offers?.tools || !offers?.resources ? definitionsOf(name, await pool.listTools(connection, signal)) : [];
    return {
      status: { name, status: 'connected', tools: tools.map((tool) => tool.name) },
      tools,
      ...(offers?.resources ? { resources: true as const } : {}),
    };
  } catch (error) {
    if (signal.aborted) throw new CancelledFailure('Listing MCP tools cancelled');
    return {
      status: {
        name,
        status: 'failed',
        tools: [],
        error: `${describeMcpServer(config)}: ${(error as Error).message}`.slice(0, 1_000),
      },
      tools: [],
    };
  }
}

async function callMcpTool({ store, pool }: McpActivityDeps, input: CallMcpToolInput): Promise<CallMcpToolOutput> {
  const call = new CallProgress(input.name, `${input.name} ${JSON.stringify(input.arguments ?? {})}`);
  const output = await callOnce(store, pool, input, call);
  // What the server wrote in the workdir, whatever the call's outcome (one that failed or was
  // interrupted may have written too): the turn's snapshot. Not after a cancel, which the turn's end covers.
  if (!input.snapshotRef || Context.current().cancellationSignal.aborted) return output;
  const signal = Context.current().cancellationSignal;
  const snapshot = await whileHeartbeating(() => snapshotOver(store, input.workdir, input.snapshotRef!, signal), call);
  return snapshot ? { ...output, snapshot } : output;
}

async function callOnce(
  store: ContentStore,
  pool: McpPool,
  input: CallMcpToolInput,
  call: CallProgress,
): Promise<CallMcpToolOutput> {
  const context = Context.current();
  const server = `MCP server "${input.server}"`;
  if (context.info.attempt > 1 || input.resumed) {
    return errorOutput(
      store,
      input,
      `The call to ${input.name} was interrupted (the worker running it stopped) and was not made again: it may or may not have taken effect on the ${server}. Check its effect before calling it again.`,
    );
  }
  const place = { workdir: input.workdir, ...(input.sandbox ? { sandbox: input.sandbox } : {}) };
  let connection: McpConnection;
  try {
    connection = await whileHeartbeating(() => pool.connect(input.sessionId, input.server, input.config, place), call);
  } catch (error) {
    return errorOutput(store, input, `The ${server} could not be started: ${(error as Error).message}`);
  }
  let result: CallToolResult;
  try {
    result = await whileHeartbeating(() => callServerTool(connection, input, call, context.cancellationSignal), call);
  } catch (error) {
    if (context.cancellationSignal.aborted) throw new CancelledFailure('MCP tool call cancelled');
    const died = connection.closed
      ? ` The server stopped during the call (it is started again for the next call); the call may or may not have taken effect.`
      : '';
    return {
      ...(await errorOutput(store, input, `${input.name} failed: ${(error as Error).message}.${died}`)),
      ...changed(connection),
    };
  }
  return resultOutput(store, input, result, connection);
}

/** The request to the server, given up after MCP_CALL_TIMEOUT_MS or on cancellation. */
async function callServerTool(
  connection: McpConnection,
  input: CallMcpToolInput,
  call: CallProgress,
  signal: AbortSignal,
): Promise<CallToolResult> {
  return (await connection.client.callTool(
    { name: input.tool, arguments: (input.arguments ?? {}) as Record<string, unknown> },
    undefined,
    {
      signal,
      timeout: MCP_CALL_TIMEOUT_MS,
      // A server that reports progress: its latest message is the call's last line.
      onprogress: (update) => call.onOutput(`\n${update.message ?? progressOf(update)}\n`),
    },
  )) as CallToolResult;
}

/** The server's answer as the tool's result (an error result stays one), with the user's approval feedback. */
async function resultOutput(
  store: ContentStore,
  input: CallMcpToolInput,
  result: CallToolResult,
  connection: McpConnection,
): Promise<CallMcpToolOutput> {
  const { text: output, media } = await contentOf(store, result);
  const text = input.approvalFeedback ? `${output}\n\nUser feedback on approval: ${input.approvalFeedback}` : output;
  return {
    result: {
      toolUseId: input.toolUseId,
      isError: result.isError === true,
      content: await storeText(store, result.isError ? toolUseError(text) : text),
      toolName: input.name,
      ...(media.length ? { media } : {}),
    },
    ...changed(connection),
  };
}

/** A progress notification without a message: `3 of 10`, or just `3`. */
function progressOf(update: { progress: number; total?: number }): string {
  return update.total ? `${update.progress} of ${update.total}` : String(update.progress);
}

/** The tools of one server as the model sees them. */
export function definitionsOf(server: string, tools: Tool[]): McpToolDefinition[] {
  return tools.map((tool) => ({
    name: mcpToolName(server, tool.name),
    server,
    tool: tool.name,
    description: (tool.description ?? tool.title ?? `${tool.name} (MCP server ${server})`).slice(0, 2_000),
    inputSchema: tool.inputSchema as Record<string, unknown>,
  }));
}

/** Whether the server said its list changed: reported once, then the workflow lists again. */
function changed(connection: { listChanged: boolean }): { toolsChanged?: true } {
  if (!connection.listChanged) return {};
  connection.listChanged = false;
  return { toolsChanged: true };
}

async function errorOutput(store: ContentStore, input: CallMcpToolInput, message: string): Promise<CallMcpToolOutput> {
  return {
    result: {
      toolUseId: input.toolUseId,
      isError: true,
      content: await storeText(store, toolUseError(message)),
      toolName: input.name,
    },
  };
}

/** The result's content as text (and images for the model), capped as a tool's output is. */
async function contentOf(store: ContentStore, result: CallToolResult): Promise<{ text: string; media: StoredMedia[] }> {
  const parts: string[] = [];
  const media: StoredMedia[] = [];
  for (const block of result.content ?? []) {
    if (block.type === 'text') parts.push(block.text);
    else if (block.type === 'image') {
      media.push({
        kind: 'image',
        mediaType: block.mimeType,
        ref: await store.put(block.data),
        bytes: Math.floor((block.data.length * 3) / 4),
        estimatedChars: 6_000,
      });
    } else if (block.type === 'resource')
      parts.push('text' in block.resource ? String(block.resource.text) : `[resource ${block.resource.uri}]`);
    else if (block.type === 'resource_link') parts.push(`[resource ${block.uri}]`);
    else parts.push(`[${block.type} content]`);
  }
  if (parts.length === 0 && result.structuredContent) parts.push(JSON.stringify(result.structuredContent));
  let text = parts.join('\n');
  if (text.length > TOOL_RESULT_MAX_CHARS)
    text = `${text.slice(0, TOOL_RESULT_MAX_CHARS)}\n\n... [${text.length - TOOL_RESULT_MAX_CHARS} characters cut]`;
  return { text: text || (media.length ? '' : '(no content)'), media };
}
