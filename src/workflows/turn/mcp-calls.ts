/**
 * MCP calls as the workflow drives them, and the catalog listed again when a server's tools
 * changed (session/mcp-servers.ts says how listing, refresh and calls fit together).
 */
import {
  ActivityCancellationType,
  type ActivityOptions,
  isCancellation,
  patched,
  proxyActivities,
} from '@temporalio/workflow';
import type { AgentActivities } from '../../activities';
import type { PlannedToolUse, RunToolOutput } from '../../shared/activity-io';
import { toolErrorResult } from '../../shared/conversation';
import { ACTIVITY_HEARTBEAT_TIMEOUT_MS } from '../../shared/limits';
import { MCP_STARTUP_TIMEOUT_MS, type McpServerConfig, mcpStartupTimeoutMs } from '../../shared/mcp';
import type { AgentSession } from '../session/agent-session';
import { listMcpTools, listOptions } from '../session/mcp-servers';
import { MCP_CALL_SNAPSHOT_PATCH } from '../core/features';
import { rulesOf } from '../core/tool-rules';

/** What an MCP call uses of the session: a phase takes what it needs, not the whole session. */
export type McpCallSession = Pick<AgentSession, 'host' | 'id' | 'state' | 'update' | 'workspace'>;

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

function callOptions(config: McpServerConfig): ActivityOptions {
  const extraMs = mcpStartupTimeoutMs(config) - MCP_STARTUP_TIMEOUT_MS;
  return extraMs > 0 ? { ...MCP_CALL_OPTIONS, startToCloseTimeout: 11 * 60_000 + extraMs } : MCP_CALL_OPTIONS;
}

const { callMcpTool } = proxyActivities<AgentActivities>(MCP_CALL_OPTIONS);

/** Whether a planned call goes to an MCP server. */
export function isMcpCall(call: PlannedToolUse): boolean {
  return rulesOf(call).mcp !== undefined;
}

/**
 * The snapshot a call snapshots over when done: a stdio server runs in the workdir and may write
 * there, as a Bash command may (an HTTP server runs elsewhere and cannot).
 */
function snapshotBase(session: McpCallSession, config: McpServerConfig): string | undefined {
  const latest = session.workspace.latestRef;
  return config.type !== 'http' && latest && patched(MCP_CALL_SNAPSHOT_PATCH) ? latest : undefined;
}

/**
 * One MCP call as an activity on the session's host. Activity failures are left to the caller
 * (they become error results). `snapshotting`: the turn's calls whose changes still want a
 * snapshot at its end (this one, until it brings its own back).
 */
export async function runMcpCall(
  session: McpCallSession,
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
export async function refreshMcpTools(session: McpCallSession): Promise<void> {
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
