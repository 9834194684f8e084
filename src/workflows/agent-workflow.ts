/**
 * The workflow driver: Claude Code's query loop, one turn per iteration. Prepare the context,
 * call the model, branch on its outcome (recovery layers, the end of the turn, or tools), run
 * the tools, and go on. The decisions are pure functions (loop.ts, context-plan.ts,
 * core/turn-end-rules.ts); each phase lives in its own file; this file only strings them together.
 *
 * Deterministic by construction: no I/O, no environment, no clock but the workflow's. Everything
 * that touches the world (the model, files, commands, hooks) is an activity, imported as a type
 * only. After a worker crash, Temporal replays this function against the recorded history and
 * it resumes exactly where it was: completed activities (a compaction included) are not run again.
 */
import {
  ApplicationFailure,
  ContinueAsNew,
  isCancellation,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { CallModelOutcome } from '../shared/activity-io';
import type { AgentResult, ApprovalDecision, SubAgentApprovals, TerminalReason, UserMessage } from '../shared/contract';
import {
  ANSWER_QUESTION_UPDATE,
  APPROVE_TOOL_SIGNAL,
  APPROVE_TOOL_UPDATE,
  CHECKPOINT_QUERY,
  checkMessageInput,
  DIFF_QUERY,
  INTERRUPT_SIGNAL,
  INTERRUPT_UPDATE,
  MOVE_UPDATE,
  SUB_AGENT_APPROVALS,
  TRANSCRIPT_QUERY,
  USER_MESSAGE,
} from '../shared/message-inputs';
import {
  answerQuestionUpdate,
  approveToolSignal,
  approveToolUpdate,
  checkpointQuery,
  diffQuery,
  endSignal,
  interruptSignal,
  interruptUpdate,
  moveUpdate,
  rewindUpdate,
  stateQuery,
  subAgentApprovalsSignal,
  transcriptQuery,
  userMessageSignal,
} from './definitions';
import { type DroppedSignal, parsedSignal } from './session/malformed-signals';
import { ErrorType } from '../shared/errors';
import { checkAgentInput, inlinePromptProblem, type ResolvedAgentInput } from '../shared/input';
import { callModel, modelCallOptions } from './activity-options';
import { AgentSession } from './session/agent-session';
import {
  CONTINUE_AS_NEW_PATCH,
  HOOK_EVENTS_PATCH,
  INLINE_PROMPT_LIMIT_PATCH,
  RATE_LIMIT_WAIT_PATCH,
  readFeatures,
} from './core/features';
import { newHookEvents } from '../shared/hooks';
import { failureMessage } from './core/failures';
import { shouldContinueAsNew, type TurnOutcome } from './core/loop';
import { outputLimit, withTransition } from './core/loop-state';
import { prepareTurnContext, recover } from './turn/context-recovery';
import { callModelRequest, modelCallSummary } from './core/requests';
import { hasPromptHooks, screeningNeeded, screenQueued, submitTask } from './turn/prompt-hooks';
import { endSession, hasEndHooks, hasStartHooks, startSession } from './turn/session-hooks';
import { toolsLeftOutNote } from './core/sub-agent-input';
import { runToolTurn } from './turn/tool-turn';
import { modelAnswered, waitOutRateLimit } from './turn/rate-limit-wait';
import { afterStopped, endTurn, rewindBetweenTurns } from './turn/turn-end';
import { afterStructuredOutput } from './turn/structured-output';

export async function agentWorkflow(rawInput: unknown): Promise<AgentResult> {
  const input = validInput(rawInput);
  // Sessions that started before a feature replay without its marker and keep the behaviour they
  // were recorded with (test/fixtures/histories holds such histories).
  const features = readFeatures(patched);
  let session: AgentSession | undefined;
  try {
    const opening = new AgentSession(input, features);
    registerHandlers(opening);
    await opening.open();
    // Only an opened session is finished or released below: one whose opening failed (its
    // preparation refused, or cancelled while it waited for its workdir) holds nothing yet.
    session = opening;
    // A sub-agent's calls waiting for approval show in its parent's state, which passes the answers on.
    if (input.parentSession) session.steering.reportApprovalsTo(input.parentSession);
    // A sub-agent whose type asked for more than its parent has says so, once (not again after continue-as-new).
    const parent = input.parentSession;
    if (parent?.toolsLeftOut && !input.resume)
      session.note(toolsLeftOutNote(parent.toolUseId, parent.toolsLeftOut.agentType, parent.toolsLeftOut.tools));
    // The task passes its UserPromptSubmit hooks (a session without them awaits nothing here);
    // a sub-agent's task comes from its parent's model, not from a person: no such hooks.
    // SessionStart (SubagentStart in a sub-agent) hooks, when the session has some: their context joins the conversation.
    const started = !input.resume && hasStartHooks(session) ? await startSession(session) : undefined;
    if (started) return await finishSession(session, 'hook_stopped', started.ended);
    const task =
      !input.resume && !input.parentSession && hasPromptHooks(session) ? await submitTask(session) : undefined;
    if (task) return await finishSession(session, 'hook_stopped', task.ended);
    for (;;) {
      const next = await turn(session);
      if (next.kind === 'finish') return await finishSession(session, next.reason, next.error);
      // Sessions of any length: at a turn boundary, hand the state to a fresh run (same workflow
      // id) before history grows large. Sessions from before `continueAsNewAtEveryBoundary` checked after tools only.
      // A rewind asked for is carried out first (continue-as-new waits for every update to return).
      // Background commands are activities of this run: it goes on until they end (session/background-commands.ts).
      const boundary =
        (features.continueAsNewAtEveryBoundary || next.afterTools) &&
        !session.workspace.rewindPending &&
        !session.background.running();
      if (
        boundary &&
        shouldContinueAsNew(
          workflowInfo().continueAsNewSuggested,
          input.continueAsNewAfterTurns,
          session.turnsThisRun,
        ) &&
        patched(CONTINUE_AS_NEW_PATCH)
      ) {
        return await session.continueAsNew(rawInput);
      }
    }
  } catch (error) {
    // The workflow was cancelled (`temporal workflow cancel`, the UI's Cancel) while no phase
    // could turn it into a result: it ends like an interrupted session.
    if (features.cancellationEndsWithResult && isCancellation(error) && session) {
      const stopped = session.cancellationOutcome();
      return session.finish(stopped.reason, stopped.error);
    }
    // A failed session frees its workdir for the next one (a terminated one stops renewing its lease, which
    // expires); a session continuing as new keeps it.
    if (!(error instanceof ContinueAsNew)) await session?.lease.release();
    throw error;
  }
}

/**
 * Every signal, update and query of a session, registered in one block (as in Temporal's
 * safe-message-handlers sample); the logic is in the parts they call. Signals and updates that
 * reached the workflow before this run are delivered as each handler is set, so the order here is
 * part of what recorded histories replay: steering's first, before it shows any change (the view
 * publishes nothing for them), then the view's queries, the workspace's, the host's.
 */
function registerHandlers({ steering, view, workspace, host }: AgentSession): void {
  const dropped = (note: DroppedSignal) => steering.droppedSignals.note(note);
  setHandler(
    userMessageSignal,
    parsedSignal(USER_MESSAGE, {
      valid: ({ text }) => steering.receiveMessage(text),
      legacy: (raw) => steering.receiveMessage((raw as UserMessage).text),
      dropped: (note) => steering.messageDropped(note),
    }),
  );
  setHandler(endSignal, () => steering.end());
  const interrupt = () => void steering.requestInterrupt();
  setHandler(interruptSignal, parsedSignal(INTERRUPT_SIGNAL, { valid: interrupt, legacy: interrupt, dropped }));
  setHandler(interruptUpdate, () => steering.interruptAndWait(), {
    validator: (...args: unknown[]) => void checkMessageInput(INTERRUPT_UPDATE, args),
  });
  // Validators refuse before an update enters history: unknown ids and bad decisions never reach the workflow.
  setHandler(approveToolUpdate, (answer) => steering.answer(answer), {
    validator: (...args: unknown[]) => steering.checkAnswer(checkMessageInput(APPROVE_TOOL_UPDATE, args)),
  });
  const passedOn = (answer: ApprovalDecision | null | undefined) => steering.passOnAnswer(answer);
  setHandler(
    approveToolSignal,
    parsedSignal(APPROVE_TOOL_SIGNAL, { valid: passedOn, legacy: (raw) => passedOn(raw as ApprovalDecision), dropped }),
  );
  const waiting = (report: SubAgentApprovals) => steering.subAgentWaiting(report);
  setHandler(
    subAgentApprovalsSignal,
    parsedSignal(SUB_AGENT_APPROVALS, { valid: waiting, legacy: (raw) => waiting(raw as SubAgentApprovals), dropped }),
  );
  steering.showChangesIn(view);
  // A query that throws answers its caller with the error; the workflow goes on untouched.
  setHandler(stateQuery, () => view.snapshot());
  setHandler(transcriptQuery, (...args: unknown[]) => view.page(checkMessageInput(TRANSCRIPT_QUERY, args) ?? {}));
  if (workspace.enabled) {
    setHandler(rewindUpdate, (request) => workspace.rewind(request), {
      validator: (...args: unknown[]) => workspace.validateRewind(...args),
    });
    setHandler(checkpointQuery, (...args: unknown[]) =>
      workspace.checkpointAt(checkMessageInput(CHECKPOINT_QUERY, args).turn),
    );
    setHandler(diffQuery, (...args: unknown[]) => workspace.diff(checkMessageInput(DIFF_QUERY, args) ?? {}));
  }
  setHandler(moveUpdate, (request) => host.requestMove(request), {
    validator: (...args: unknown[]) => host.validateMove(checkMessageInput(MOVE_UPDATE, args)),
  });
  // Issue 25: a question to the user (AskUserQuestion) answered. Refused (never applied) when no such question waits.
  setHandler(answerQuestionUpdate, (answer) => steering.answerQuestion(answer), {
    validator: (...args: unknown[]) => steering.checkQuestionAnswer(checkMessageInput(ANSWER_QUESTION_UPDATE, args)),
  });
}

/** One turn: prepare, call the model, branch, run the tools. Says whether the loop goes on. */
async function turn(session: AgentSession): Promise<TurnOutcome> {
  // 0. A rewind asked for (update `rewind`) is carried out between turns.
  if (session.workspace.rewindPending) return rewindBetweenTurns(session);

  // 1. Prepare: messages people sent pass their UserPromptSubmit hooks; count the turn (or stop at maxTurns), then the context pipeline.
  if (screeningNeeded(session)) await screenQueued(session);
  const begun = session.beginTurn();
  if (begun.kind === 'finish') return begun;
  if (begun.newTurn && session.features.recoveryLayers) await prepareTurnContext(session);

  // 2. Call the model; an interrupt, or the workflow's cancellation, stops it.
  const called = await callModelInterruptibly(session);
  if (called.kind === 'stopped') return afterStopped(session, 'model', called.byInterrupt);
  if (called.kind === 'failed') return { kind: 'finish', reason: 'model_error', error: called.error };
  // Issue 26: a rate limit is waited out on a durable timer, then the same call goes again.
  if (called.outcome.kind === 'rate_limited') return waitOutRateLimit(session, called.outcome);
  modelAnswered(session);

  // 3. Branch: the recovery layers first, then the end of the turn, a retry, or tools.
  const step = await recover(session, session.afterModel(called.outcome), called.outcome);
  if (step.kind === 'finish') {
    // Stop hooks, the token budget and people only weigh in when the model completed its turn.
    if (step.reason !== 'completed' || !session.features.steering) return step;
    return endTurn(session);
  }
  if (step.kind === 'call_model') {
    const detail = step.transition === 'model_fallback_retry' ? session.state.model : undefined;
    session.update(withTransition(session.state, step.transition), { transition: true, detail });
    return { kind: 'continue' };
  }

  // 4. Run the tools; their results are the next turn's message.
  const tools = await runToolTurn(session, step.toolUses);
  if (tools.kind === 'stopped') return afterStopped(session, 'tools', tools.byInterrupt);
  if (tools.kind === 'hook_stopped') return { kind: 'finish', reason: 'hook_stopped', error: tools.reason };
  // Input `outputFormat`: a valid StructuredOutput call ends the turn; invalid ones count towards the limit.
  if (session.input.outputFormat) return afterStructuredOutput(session, step.toolUses);
  return { kind: 'continue', afterTools: true };
}

/** The session's SessionEnd hooks (when it has some; they cannot keep it going), then its end. */
async function finishSession(session: AgentSession, reason: TerminalReason, error?: string): Promise<AgentResult> {
  if (hasEndHooks(session, reason)) await endSession(session, reason).catch(() => undefined);
  return session.finish(reason, error);
}

/** Invalid input fails the workflow at once (a failure, not an exception that would retry the task forever). */
function validInput(rawInput: unknown): ResolvedAgentInput {
  const check = checkAgentInput(rawInput, { inlinePromptLimit: false });
  if (!check.ok) throw ApplicationFailure.nonRetryable(check.message, ErrorType.InvalidWorkflowInput);
  // The prompt's size is checked in a session's first run only (a run continued as new carries a
  // prompt its first run took), and asked with `patched()` only when over the limit: sessions
  // started before the limit replay, prompt and all, as they were recorded.
  const tooBig = check.input.resume ? undefined : inlinePromptProblem(check.input.prompt);
  if (tooBig && patched(INLINE_PROMPT_LIMIT_PATCH)) {
    throw ApplicationFailure.nonRetryable(tooBig, ErrorType.InvalidWorkflowInput);
  }
  // Hook events other than the first four failed the input before issue 25: sessions refused for
  // one replay their refusal (asked only for such an input).
  const newEvents = newHookEvents(rawInput);
  if (newEvents.length && !patched(HOOK_EVENTS_PATCH)) {
    const fields = newEvents.map((event) => `hooks.${event}`).join(', ');
    throw ApplicationFailure.nonRetryable(
      `Invalid agentWorkflow input: unknown field(s): ${fields}`,
      ErrorType.InvalidWorkflowInput,
    );
  }
  return check.input;
}

type Called =
  | { kind: 'outcome'; outcome: CallModelOutcome }
  | { kind: 'stopped'; byInterrupt: boolean }
  | { kind: 'failed'; error: string };

async function callModelInterruptibly(session: AgentSession): Promise<Called> {
  session.setStatus('running_model');
  try {
    const request = {
      ...callModelRequest(session.state),
      ...session.workspace.turnEnd(session.state),
      ...session.transcriptChain.mark(),
      // Issue 26: rate limits come back as data, for a durable wait (sessions recorded before it retried them).
      ...(patched(RATE_LIMIT_WAIT_PATCH) ? { rateLimitsInWorkflow: true as const } : {}),
      ...(session.input.outputFormat ? { outputSchema: session.input.outputFormat.schema } : {}),
    };
    const options = { ...modelCallOptions(outputLimit(session.state)), summary: modelCallSummary(session.state) };
    const outcome = await session.steering.interruptible('model', () =>
      callModel.executeWithOptions(options, [request]),
    );
    session.workspace.recordCheckpointRef(outcome.checkpointRef);
    session.transcriptChain.recordTranscriptRef(outcome.transcriptRef);
    // The reply was complete when the interrupt reached it: the person asked to stop, so it stops.
    if (session.features.cancellationEndsWithResult && session.steering.interruptPending())
      return { kind: 'stopped', byInterrupt: session.steering.takeInterrupt() };
    return { kind: 'outcome', outcome };
  } catch (error) {
    if (isCancellation(error)) return { kind: 'stopped', byInterrupt: session.steering.takeInterrupt() };
    return { kind: 'failed', error: failureMessage(error) };
  }
}
