/**
 * The calls whose plan says `background` (issue 26): a Bash call with `run_in_background` starts
 * its tool activity without the turn waiting for it (on the session's host, one attempt, its
 * cancellation waited for); TaskOutput and TaskStop are carried out by the workflow itself over
 * the session's background commands (session/background-commands.ts). No tool is named here.
 */
import { patched } from '@temporalio/workflow';
import type { PlannedToolUse, RunToolOutput } from '../../shared/activity-io';
import { toolErrorResult } from '../../shared/conversation';
import { runTool, toolActivityOptions } from '../activity-options';
import { BACKGROUND_COMMANDS_PATCH } from '../core/features';
import { runToolRequest } from '../core/requests';
import { rulesOf } from '../core/tool-rules';
import type { AgentSession } from '../session/agent-session';
import type { PersonApproval } from './run-tools';

export type BackgroundCallSession = Pick<AgentSession, 'background' | 'host' | 'id' | 'state'>;

/** Whether the workflow treats this call as a background command's. */
export function isBackgroundCall(call: PlannedToolUse): boolean {
  return call.plan.ok && rulesOf(call).background !== undefined;
}

export async function runBackgroundCall(
  session: BackgroundCallSession,
  call: PlannedToolUse,
  approval: PersonApproval | undefined,
): Promise<RunToolOutput> {
  if (!patched(BACKGROUND_COMMANDS_PATCH))
    return { result: toolErrorResult(call, 'Background commands are not available in this session.') };
  switch (rulesOf(call).background) {
    case 'output':
      return { result: await session.background.output(call) };
    case 'stop':
      return { result: await session.background.stop(call) };
    default:
      return { result: session.background.start(call, session.state.turnCount, () => start(session, call, approval)) };
  }
}

/** The call's own tool activity, on the session's host now: one attempt (a lost one is reported, never run again). */
function start(
  session: BackgroundCallSession,
  call: PlannedToolUse,
  approval: PersonApproval | undefined,
): Promise<RunToolOutput> {
  const summary = call.plan.ok ? `background · ${call.plan.summary}` : call.name;
  const options = {
    ...toolActivityOptions(call, summary, true),
    ...session.host.options(),
    retry: { maximumAttempts: 1 },
  };
  const request = runToolRequest(session.id, session.state, call, approval && { ...approval, approved: true });
  return runTool.executeWithOptions(options, [request]);
}
