/**
 * Plan mode and questions to the user, carried out by the workflow itself (the call's rules say
 * `sessionControl`): EnterPlanMode switches the session to `plan`; ExitPlanMode waits, durably,
 * for a person to approve the plan (update `approveTool`, with the mode to go on in), and
 * AskUserQuestion for the answers (update `answerQuestion`, no timeout). A wait is a `condition`
 * on steering state, so it outlasts worker restarts: the new worker replays to the same wait.
 * An interrupt (or the workflow's cancellation) ends it: the tool turn gives the call the
 * interrupted result.
 *
 * And the one place plan mode refuses a call: `planModeRefusal`, which the approval gate asks.
 */
import type { PlannedToolUse, RunToolOutput } from '../../shared/activity-io';
import { type ToolResult, toolErrorResult } from '../../shared/conversation';
import {
  ENTERED_PLAN_MODE,
  NOT_IN_PLAN_MODE,
  PLAN_NOT_ANSWERED,
  planApprovedText,
  planOf,
  planRejectedText,
  type Question,
  questionsAnsweredText,
  refusedInPlanMode,
} from '../../shared/plan-mode';
import { STRUCTURED_OUTPUT_ACCEPTED } from '../../shared/structured-output';
import type { AgentSession } from '../session/agent-session';
import { rulesOf } from '../core/tool-rules';

/** What these calls use of the session. */
export type PersonToolSession = Pick<
  AgentSession,
  | 'input'
  | 'lastReplyText'
  | 'note'
  | 'permissionMode'
  | 'setPermissionMode'
  | 'setStatus'
  | 'state'
  | 'steering'
  | 'update'
>;

/** A call plan mode refuses: one that says it needs approval (it changes files or runs commands). */
export interface ModeDenial {
  decision: 'mode_deny';
  reason: string;
}

/** While the session is in `plan` mode, a call whose plan says it needs approval is refused, with why. */
export function planModeRefusal(
  session: Pick<AgentSession, 'permissionMode'>,
  call: PlannedToolUse,
): ModeDenial | null {
  if (session.permissionMode() !== 'plan' || !call.plan.ok || !rulesOf(call).needsApproval) return null;
  return { decision: 'mode_deny', reason: refusedInPlanMode(call.name) };
}

/** Whether the workflow carries this call out itself. */
export function isPersonTool(call: PlannedToolUse): boolean {
  return call.plan.ok && rulesOf(call).sessionControl !== undefined;
}

export async function runPersonTool(session: PersonToolSession, call: PlannedToolUse): Promise<RunToolOutput> {
  switch (rulesOf(call).sessionControl) {
    case 'enter_plan_mode':
      if (session.permissionMode() !== 'plan') session.setPermissionMode('plan', 'the model entered plan mode');
      return { result: textResult(call, ENTERED_PLAN_MODE) };
    case 'exit_plan_mode':
      return { result: await exitPlanMode(session, call) };
    case 'structured_output':
      // Valid against input `outputFormat`'s schema (the model activity checked it): the session's answer.
      session.update({ ...session.state, structuredOutput: call.input });
      return { result: textResult(call, STRUCTURED_OUTPUT_ACCEPTED) };
    default:
      return { result: await askUser(session, call) };
  }
}

async function exitPlanMode(session: PersonToolSession, call: PlannedToolUse): Promise<ToolResult> {
  if (session.permissionMode() !== 'plan') return toolErrorResult(call, NOT_IN_PLAN_MODE);
  const plan = planOf(call.input, session.lastReplyText);
  session.setStatus('waiting_approval');
  const answer = await session.steering.awaitApproval(call, session.input.approvalTimeoutMs, plan);
  session.setStatus('running_tools');
  if (answer.decision === 'allow') {
    const mode = answer.mode ?? 'default';
    session.note({ type: 'approval', toolUseId: call.id, decision: 'allow', mode, ...feedbackOf(answer) });
    session.setPermissionMode(mode, 'a person approved the plan');
    return textResult(call, planApprovedText(plan, mode, answer.feedback));
  }
  if (answer.decision === 'timeout') {
    session.note({ type: 'approval', toolUseId: call.id, decision: 'timeout' });
    return toolErrorResult(call, PLAN_NOT_ANSWERED);
  }
  session.note({ type: 'approval', toolUseId: call.id, decision: answer.decision, ...feedbackOf(answer) });
  return toolErrorResult(call, planRejectedText(answer.feedback));
}

async function askUser(session: PersonToolSession, call: PlannedToolUse): Promise<ToolResult> {
  const questions = (call.input as { questions: Question[] }).questions;
  session.setStatus('waiting_answer');
  const answers = await session.steering.awaitAnswers(call, questions);
  session.setStatus('running_tools');
  const asked = questions.map((question) => question.question);
  session.note({ type: 'question', toolUseId: call.id, questions: asked, answers });
  return textResult(call, questionsAnsweredText(answers));
}

function feedbackOf(answer: { feedback?: string }): { feedback?: string } {
  return answer.feedback ? { feedback: answer.feedback } : {};
}

function textResult(call: PlannedToolUse, text: string): ToolResult {
  return { toolUseId: call.id, isError: false, content: { text }, toolName: call.name };
}
