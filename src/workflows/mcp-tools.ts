/**
 * MCP servers as the workflow drives them. Deterministic: the connections live in the workers
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
import {
  ActivityCancellationType,
  type ActivityOptions,
  isCancellation,
  patched,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { AgentActivities } from '../activities';
import type { PlannedToolUse, PrepareSessionOutput, RunToolOutput } from '../shared/activity-io';
import { toolErrorResult } from '../shared/conversation';
import type { ResolvedAgentInput } from '../shared/input';
import { ACTIVITY_HEARTBEAT_TIMEOUT_MS } from '../shared/limits';
import {
  longestMcpStartupMs,
  MCP_STARTUP_TIMEOUT_MS,
  type McpServerConfig,
  type McpServers,
  type McpSession,
  mcpStartupTimeoutMs,
  mergeMcpServers,
} from '../shared/mcp';
import type { AgentSession } from './agent-session';
import { MCP_CALL_SNAPSHOT_PATCH } from './features';
import { sandboxRequest } from './loop-state';
import { rulesOf } from './tool-rules';

/** Listing connects servers (starting a stdio one can take seconds): a retry is harmless, listing changes nothing. */
const MCP_LIST_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: ACTIVITY_HEARTBEAT_TIMEOUT_MS,
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
};

/**
 * A call: at most two attempts, the second only to report an unknown outcome when the first
 * one's worker died (the heartbeat timeout notices within seconds). The activity's own timeout
 * (10 minutes) ends a call that hangs with an error result before this one.
 */
const MCP_CALL_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '11 minutes',
  heartbeatTimeout: ACTIVITY_HEARTBEAT_TIMEOUT_MS,
  retry: { initialInterval: '1 second', maximumAttempts: 2 },
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
};

/**
 * Servers whose `startupTimeoutMs` is longer than the default get that much more time for the
 * listing (start, then list) and for a call (which may have to start its server first). Servers
 * without one get the options above unchanged, as recorded histories have them.
 */
function listOptions(servers: McpServers): ActivityOptions {
  const extraMs = longestMcpStartupMs(servers) - MCP_STARTUP_TIMEOUT_MS;
  return extraMs > 0 ? { ...MCP_LIST_OPTIONS, startToCloseTimeout: 2 * 60_000 + 2 * extraMs } : MCP_LIST_OPTIONS;
}

function callOptions(config: McpServerConfig): ActivityOptions {
  const extraMs = mcpStartupTimeoutMs(config) - MCP_STARTUP_TIMEOUT_MS;
  return extraMs > 0 ? { ...MCP_CALL_OPTIONS, startToCloseTimeout: 11 * 60_000 + extraMs } : MCP_CALL_OPTIONS;
}

const { listMcpTools } = proxyActivities<AgentActivities>(MCP_LIST_OPTIONS);
const { callMcpTool } = proxyActivities<AgentActivities>(MCP_CALL_OPTIONS);

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

/** Whether a planned call goes to an MCP server. */
export function isMcpCall(call: PlannedToolUse): boolean {
  return rulesOf(call).mcp !== undefined;
}

/**
 * The snapshot a call snapshots over when done: a stdio server runs in the workdir and may write
 * there, as a Bash command may (an HTTP server runs elsewhere and cannot).
 */
function snapshotBase(session: AgentSession, config: McpServerConfig): string | undefined {
  const latest = session.workspace.latestRef;
  return config.type !== 'http' && latest && patched(MCP_CALL_SNAPSHOT_PATCH) ? latest : undefined;
}

/**
 * One MCP call as an activity on the session's host. Activity failures are left to the caller
 * (they become error results). `snapshotting`: the turn's calls whose changes still want a
 * snapshot at its end (this one, until it brings its own back).
 */
export async function runMcpCall(
  session: AgentSession,
  call: PlannedToolUse,
  approvalFeedback: string | undefined,
  snapshotting: Set<string>,
): Promise<RunToolOutput> {
  const target = rulesOf(call).mcp!;
  const mcp = session.state.mcp;
  const config = mcp?.servers[target.server];
  if (!config)
    return { result: toolErrorResult(call, `The MCP server "${target.server}" is not configured in this session.`) };
  const summary = call.plan.ok ? call.plan.summary : call.name;
  const snapshotRef = snapshotBase(session, config);
  if (snapshotRef) snapshotting.add(call.id);
  const output = await session.host.call((where, retry) =>
    callMcpTool.executeWithOptions({ ...callOptions(config), ...where, summary }, [
      {
        sessionId: session.id,
        toolUseId: call.id,
        name: call.name,
        server: target.server,
        config,
        tool: target.tool,
        arguments: call.input,
        workdir: session.state.workdir,
        ...(session.state.sandbox ? { sandbox: session.state.sandbox } : {}),
        ...(approvalFeedback ? { approvalFeedback } : {}),
        ...(retry.resumed ? { resumed: true as const } : {}),
        ...(snapshotRef ? { snapshotRef } : {}),
      },
    ]),
  );
  const { toolsChanged, ...result } = output;
  if (toolsChanged && session.state.mcp)
    session.update({ ...session.state, mcp: { ...session.state.mcp, listChanged: true } });
  return result;
}

/** After a tool turn: a server said its tools changed, so the catalog is listed again before the next model call. */
export async function refreshMcpTools(session: AgentSession): Promise<void> {
  const mcp = session.state.mcp;
  if (!mcp?.listChanged) return;
  try {
    const listed = await session.host.call((where) =>
      listMcpTools.executeWithOptions(
        { ...listOptions(mcp.servers), ...where, summary: 'MCP tools changed · list again' },
        [
          {
            sessionId: session.id,
            workdir: session.state.workdir,
            servers: mcp.servers,
            ...(session.state.sandbox ? { sandbox: session.state.sandbox } : {}),
          },
        ],
      ),
    );
    session.update({
      ...session.state,
      mcp: { servers: mcp.servers, toolsRef: listed.toolsRef, status: listed.status },
    });
  } catch (error) {
    if (isCancellation(error)) throw error;
    // Listing failed (its retries too): the session goes on with the tools it had.
    session.update({ ...session.state, mcp: { servers: mcp.servers, toolsRef: mcp.toolsRef, status: mcp.status } });
  }
}
