/**
 * The tool turn: the planned calls run in batches (each call an activity, some waiting for a
 * person's approval), an interrupt stops them, and every `tool_use` gets exactly one result,
 * which together become the next user message. The small model's summary of the batch follows
 * in the background.
 */
import { CancellationScope, isCancellation, patched } from '@temporalio/workflow';
import type { PlannedToolUse, RunToolOutput } from '../../shared/activity-io';
import { contentPreview, type ToolResult, toolErrorResult } from '../../shared/conversation';
import { runTool, SUMMARY_OPTIONS, summarizeToolBatch, toolActivityOptions } from '../activity-options';
import type { AgentSession } from '../session/agent-session';
import { SELF_LABELLED_BATCH_PATCH } from '../core/features';
import { failureMessage } from '../core/failures';
import { absorbToolResults, recordFileState, recordInstructionDirs } from '../core/loop-state';
import { runToolRequest } from '../core/requests';
import { type PermissionDenial, type PersonApproval, runToolUses } from './run-tools';
import { summaryOf } from '../core/call-summary';
import type { ApprovalAnswer } from '../session/steering';
import { isMcpCall, refreshMcpTools, runMcpCall, type McpCallSession } from './mcp-calls';
import { permissionFor } from './permissions';
import { interruptedResult, orderToolResults, STOPPED_BY_INTERRUPT } from '../core/tool-batches';
import { runSubAgent, type SubAgentSession } from './sub-agents';
import { type HookDenial, TurnHooks, type ToolHookSession } from './tool-hooks';
import { rulesOf } from '../core/tool-rules';
import { isPersonTool, type ModeDenial, planModeRefusal, runPersonTool } from './person-tools';
import { isBackgroundCall, runBackgroundCall } from './background-calls';

/** What the tool turn uses of the session: a phase takes what it needs, not the whole session. */
export type ToolTurnSession = Pick<
  AgentSession,
  | 'background'
  | 'features'
  | 'host'
  | 'id'
  | 'input'
  | 'lastReplyText'
  | 'note'
  | 'permissionMode'
  | 'noteSnapshot'
  | 'recordSnapshot'
  | 'recordToolResults'
  | 'setPermissionMode'
  | 'setStatus'
  | 'showToolCalls'
  | 'showToolSummary'
  | 'snapshotAfter'
  | 'state'
  | 'steering'
  | 'update'
  | 'workspace'
  | 'workspaceReady'
> &
  ToolHookSession &
  SubAgentSession &
  McpCallSession;

/** `stopped`: an interrupt (or the workflow's cancellation) stopped the tools; `hook_stopped`: a hook's `continue: false`. */
export type ToolTurn =
  { kind: 'done' } | { kind: 'stopped'; byInterrupt: boolean } | { kind: 'hook_stopped'; reason: string };

export async function runToolTurn(session: ToolTurnSession, toolUses: PlannedToolUse[]): Promise<ToolTurn> {
  // (Only in sessions with durable workspaces: an extra await would reorder old histories' commands.)
  if (session.features.durableWorkspace) await session.workspaceReady();
  session.showToolCalls(toolUses);
  session.setStatus('running_tools');
  for (const call of toolUses)
    session.note({ type: 'tool_call', toolUseId: call.id, name: call.name, summary: summaryOf(call) });
  const collected = new Map<string, ToolResult>();
  const turn = session.state.turnCount;
  // Calls that change files snapshot the workspace when they are done; one that started and
  // brought back no snapshot (cancelled, failed) leaves the turn's snapshot to an activity.
  const snapshotting = new Set<string>();
  const hooks = new TurnHooks(session, snapshotting);
  let stopped = false;
  try {
    await session.steering.interruptible('tools', () =>
      runToolUses(
        toolUses,
        {
          approve: (call) => approve(session, call, hooks),
          run: (call, approval) => hooks.runAs(call, (it) => runToolCall(session, it, approval, snapshotting)),
          onBatch: (calls) => session.showToolCalls(calls),
          onResult: (call, output) => {
            collected.set(call.id, output.result);
            if (output.instructionDirs) session.update(recordInstructionDirs(session.state, output.instructionDirs));
            if (output.fileState)
              session.update(recordFileState(session.state, output.fileState, rulesOf(call).readsFile === true));
            if (output.snapshot) {
              session.recordSnapshot(turn, output.snapshot);
              snapshotting.delete(call.id);
            }
          },
        },
        session.features.batchWaitsForEveryCall,
      ),
    );
  } catch (error) {
    if (!isCancellation(error)) throw error;
    stopped = true;
    // Every tool_use still gets its tool_result, so the transcript stays valid for a continuation.
    for (const call of toolUses) {
      if (!collected.has(call.id)) collected.set(call.id, interruptedResult(call, STOPPED_BY_INTERRUPT));
    }
  }
  // The calls got to their end although an interrupt (or the workflow's cancellation) came: it
  // still stops the session here (flag `cancellationEndsWithResult`; before, it waited for the next phase).
  if (
    !stopped &&
    session.features.cancellationEndsWithResult &&
    (session.steering.interruptPending() || CancellationScope.current().consideredCancelled)
  )
    stopped = true;
  const results = orderToolResults(toolUses, collected);
  session.recordToolResults(toolUses, results);
  session.update(absorbToolResults(session.state, results));
  session.showToolCalls([]);
  // The files as the turn left them, before anything goes on (also after an interrupt: the calls
  // that ran changed them); then the point a rewind or a fork can go back to.
  if (snapshotting.size > 0) await session.snapshotAfter(turn);
  session.noteSnapshot(turn);
  session.workspace.checkpoint(true);
  if (stopped) return { kind: 'stopped', byInterrupt: session.steering.takeInterrupt() };
  if (hooks.stopReason) return { kind: 'hook_stopped', reason: hooks.stopReason };
  await refreshMcpTools(session);
  session.update(session.state, { transition: true });
  if (session.features.steering && session.input.toolSummaries) summarizeInBackground(session, toolUses, results);
  return { kind: 'done' };
}

/**
 * The call's PreToolUse hooks first (when any match), then plan mode's refusal, then the
 * permission mode and rules (turn/permissions.ts): the call runs, is refused, or waits for a person's answer.
 */
async function approve(
  session: ToolTurnSession,
  call: PlannedToolUse,
  hooks: TurnHooks,
): Promise<ApprovalAnswer | HookDenial | PermissionDenial | ModeDenial | null> {
  const { approvalTimeoutMs } = session.input;
  const hook = hooks.matches('PreToolUse', call) ? await hooks.before(call) : undefined;
  if (hook?.decision === 'deny') return { decision: 'hook_deny', reason: hook.reason ?? 'no reason given' };
  const refused = planModeRefusal(session, call);
  if (refused) return refused;
  // A hook's `updatedInput` is what a person (or the rules) approve: its own plan's rules.
  const planned = hooks.callFor(call);
  const permission = permissionFor(session, planned, hook?.decision);
  if (permission.behavior === 'deny') return { decision: 'permission_deny', message: permission.message };
  if (permission.behavior === 'allow') return null;
  // PermissionRequest hooks may answer for the person; Notification hooks are told it waits.
  const byHook = hooks.beforePersonMatches(planned) ? await hooks.beforePerson(planned) : undefined;
  if (byHook) return byHook;
  session.setStatus('waiting_approval');
  const answer = await session.steering.awaitApproval(planned, approvalTimeoutMs);
  session.note({
    type: 'approval',
    toolUseId: call.id,
    decision: answer.decision,
    ...('feedback' in answer && answer.feedback ? { feedback: answer.feedback } : {}),
  });
  session.setStatus('running_tools');
  return answer;
}

/** One call as an activity. Invalid input, exhausted retries or a timeout still give the model a result. */
async function runToolCall(
  session: ToolTurnSession,
  call: PlannedToolUse,
  approval: PersonApproval | undefined,
  snapshotting: Set<string>,
): Promise<RunToolOutput> {
  if (!call.plan.ok)
    return {
      result: { toolUseId: call.id, isError: true, content: { text: call.plan.errorText }, toolName: call.name },
    };
  // Plan mode and questions: the workflow itself changes the mode or waits for a person.
  if (isPersonTool(call)) return runPersonTool(session, call);
  // Background commands: started without waiting, read or stopped by the workflow (issue 26).
  if (isBackgroundCall(call)) return runBackgroundCall(session, call, approval);
  if (rulesOf(call).subAgent) {
    // A child workflow, not an activity; what it changed is snapshotted when the turn's calls are done.
    if (session.workspace.latestRef) snapshotting.add(call.id);
    return runSubAgent(session, call);
  }
  try {
    if (isMcpCall(call)) return await runMcpCall(session, call, approval?.feedback, snapshotting);
    // The session's last snapshot: the call snapshots over it when done (calls that change files run one at a time).
    const snapshotRef = rulesOf(call).changesFiles ? session.workspace.latestRef : undefined;
    if (snapshotRef) snapshotting.add(call.id);
    const summary = call.plan.summary;
    // Built for each host the call is made on: a moved session has another workdir.
    return await session.host.call((where, retry) => {
      const options = { ...toolActivityOptions(call, summary, session.features.cancellationEndsWithResult), ...where };
      const request = runToolRequest(session.id, session.state, call, approval && { ...approval, approved: true });
      return runTool.executeWithOptions(options, [
        { ...request, ...(snapshotRef ? { snapshotRef } : {}), ...(retry.resumed ? { resumed: retry.resumed } : {}) },
      ]);
    });
  } catch (error) {
    if (isCancellation(error)) throw error;
    // Interrupted, and the call ended without saying how (its worker died): it was stopped.
    if (session.features.cancellationEndsWithResult && CancellationScope.current().consideredCancelled)
      return { result: interruptedResult(call, STOPPED_BY_INTERRUPT) };
    return { result: toolErrorResult(call, `The tool failed: ${failureMessage(error)}`) };
  }
}

/** Fire and forget: the loop does not wait for the small model's account of a tool batch. */
function summarizeInBackground(session: ToolTurnSession, toolUses: PlannedToolUse[], results: ToolResult[]): void {
  const turn = session.state.turnCount;
  const label = ownLabel(toolUses, results);
  if (label !== undefined && patched(SELF_LABELLED_BATCH_PATCH)) return session.showToolSummary(turn, label);
  const calls = toolUses.map((call, index) => ({
    name: call.name,
    summary: summaryOf(call),
    isError: results[index]!.isError,
    preview: contentPreview(results[index]!.content),
  }));
  summarizeToolBatch
    .executeWithOptions({ ...SUMMARY_OPTIONS, summary: `turn ${turn} · tool summary` }, [{ calls }])
    .then((text) => {
      if (text) session.showToolSummary(turn, text);
    })
    .catch(() => {
      // A missing summary costs nothing but the summary.
    });
}

/** A batch of one call that labels itself and succeeded: its own summary (`Read src/a.ts`) says what the turn did. */
function ownLabel(toolUses: PlannedToolUse[], results: ToolResult[]): string | undefined {
  const [call, ...others] = toolUses;
  if (!call || others.length > 0 || results[0]?.isError || rulesOf(call).labelsItself !== true) return undefined;
  return summaryOf(call);
}
