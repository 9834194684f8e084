/**
 * MCP servers as the workflow drives them (this file: listing; turn/mcp-calls.ts: calls and refresh). Deterministic: the connections live in the workers
 * (src/activities/mcp/mcp-pool.ts); the workflow only schedules activities and keeps, in the loop
 * state, the servers' configuration, the reference of their tool catalog and their status.
 *
 * - Listing. When the session is prepared, if the input or the trusted `.mcp.json` names any
 *   servers, `listMcpTools` connects them on the session's host and stores the catalog of their
 *   tools; each model call names the catalog by reference (`mcpToolsRef`), so schemas never
 *   travel through history. A server that cannot start is `failed` in the status: not fatal.
 * - Refresh. A server that changes its tool list says so (notifications/tools/list_changed) to
 *   the worker holding its connection. The workflow cannot hear that, and polling every turn
 *   would add an activity to every turn. So the call activity reports it (`toolsChanged`) with its
 *   result, and the workflow lists again, as an activity, after the tool turn and before the next
 *   model call: recorded in history, replayed as recorded, and free when nothing changed.
 * - Calls. One `callMcpTool` activity per `tool_use`, on the session's host, retried at most
 *   once, and that retry only reports that the outcome is unknown (see mcp-activities.ts): MCP
 *   tools are not assumed idempotent. A call that had started on a host that was lost is not made
 *   again on the next host either (`resumed`).
 *
 * - Files. A stdio server runs in the workdir: a call to one snapshots the workspace when done
 *   (as a Write does), so what it wrote is in the turn's snapshot, `filesChanged` and `diff`.
 *
 * Sessions without MCP servers schedule none of this: their histories are unchanged.
 */
import { type ActivityOptions, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { AgentActivities } from '../../activities';
import type { PrepareSessionOutput } from '../../shared/activity-io';
import type { ResolvedAgentInput } from '../../shared/input';
import { ACTIVITY_HEARTBEAT_TIMEOUT_MS } from '../../shared/limits';
import {
  longestMcpStartupMs,
  MCP_STARTUP_TIMEOUT_MS,
  type McpServers,
  type McpSession,
  mergeMcpServers,
} from '../../shared/mcp';
import { sandboxRequest } from '../core/loop-state';

/** Listing connects servers (starting a stdio one can take seconds): a retry is harmless, listing changes nothing. */
const MCP_LIST_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: ACTIVITY_HEARTBEAT_TIMEOUT_MS,
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
};

/**
 * Servers whose `startupTimeoutMs` is longer than the default get that much more time for the
 * listing (start, then list) and for a call (which may have to start its server first). Servers
 * without one get the options above unchanged, as recorded histories have them.
 */
export function listOptions(servers: McpServers): ActivityOptions {
  const extraMs = longestMcpStartupMs(servers) - MCP_STARTUP_TIMEOUT_MS;
  return extraMs > 0 ? { ...MCP_LIST_OPTIONS, startToCloseTimeout: 2 * 60_000 + 2 * extraMs } : MCP_LIST_OPTIONS;
}

export const { listMcpTools } = proxyActivities<AgentActivities>(MCP_LIST_OPTIONS);

/** The servers of the input and of the trusted `.mcp.json`, connected and listed on the session's host; undefined when there are none. */
export async function listMcpServers(
  input: ResolvedAgentInput,
  prepared: PrepareSessionOutput,
  where: ActivityOptions,
): Promise<McpSession | undefined> {
  const servers = mergeMcpServers(prepared.repoMcpServers, input.mcpServers);
  const names = Object.keys(servers);
  if (names.length === 0) return undefined;
  const listed = await listMcpTools.executeWithOptions(
    { ...listOptions(servers), ...where, summary: `MCP servers ${names.join(', ')}` },
    [{ sessionId: workflowInfo().workflowId, workdir: prepared.workdir, servers, ...sandboxRequest(input) }],
  );
  return { servers, toolsRef: listed.toolsRef, status: listed.status };
}
