/**
 * The workflow driver: Claude Code's query loop, one turn per iteration. Prepare the context,
 * call the model, branch on its outcome (recovery layers, the end of the turn, or tools), run
 * the tools, and go on. The decisions are pure functions (loop.ts, context-plan.ts,
 * stop-conditions.ts); each phase lives in its own file; this function only strings them together.
 *
 * Deterministic by construction: no I/O, no environment, no clock but the workflow's. Everything
 * that touches the world (the model, files, commands, hooks) is an activity, imported as a type
 * only. After a worker crash, Temporal replays this function against the recorded history and
 * it resumes exactly where it was: completed activities (a compaction included) are not run again.
 */
import { ApplicationFailure, isCancellation, patched, workflowInfo } from '@temporalio/workflow';
import type { CallModelOutcome } from '../shared/activity-io';
import type { AgentResult } from '../shared/contract';
import { ErrorType } from '../shared/errors';
import { checkAgentInput, type ResolvedAgentInput } from '../shared/input';
import { callModel, MODEL_OPTIONS } from './activity-options';
import { AgentSession } from './agent-session';
import { failureMessage } from './failures';
import { shouldContinueAsNew } from './loop';
import { withTransition } from './loop-state';
import { prepareTurnContext, recover } from './recovery';
import { callModelRequest, modelCallSummary } from './requests';
import { runToolTurn } from './tool-turn';
import { afterStopped, endTurn } from './turn-end';

export async function agentWorkflow(rawInput: unknown): Promise<AgentResult> {
  const input = validInput(rawInput);
  // Sessions that started before a feature replay without its marker and keep the behaviour they
  // were recorded with (test/fixtures/histories holds such histories).
  const features = { recoveryLayers: patched('recovery-layers'), steering: patched('steering') };
  const session = await AgentSession.open(input, features);

  for (;;) {
    // 1. Prepare: count the turn (or stop at maxTurns), then the context pipeline.
    const turn = session.beginTurn();
    if (turn.kind === 'finish') return session.finish(turn.reason);
    if (turn.newTurn && features.recoveryLayers) await prepareTurnContext(session);

    // 2. Call the model; an interrupt, or the workflow's cancellation, stops it.
    const called = await callModelInterruptibly(session);
    if (called.kind === 'stopped') {
      const next = await afterStopped(session, 'model', called.byInterrupt);
      if (next.kind === 'finish') return session.finish(next.reason, next.error);
      continue;
    }
    if (called.kind === 'failed') return session.finish('model_error', called.error);

    // 3. Branch: the recovery layers first, then the end of the turn, a retry, or tools.
    const step = await recover(session, session.afterModel(called.outcome), called.outcome);
    if (step.kind === 'finish') {
      // Stop hooks, the token budget and people only weigh in when the model completed its turn.
      if (step.reason !== 'completed' || !features.steering) return session.finish(step.reason, step.error);
      const next = await endTurn(session);
      if (next.kind === 'finish') return session.finish(next.reason, next.error);
      continue;
    }
    if (step.kind === 'call_model') {
      session.goOn(withTransition(session.state, step.transition), step.transition === 'model_fallback_retry' ? session.state.model : undefined);
      continue;
    }

    // 4. Run the tools; their results are the next turn's message.
    const tools = await runToolTurn(session, step.toolUses);
    if (tools.kind === 'stopped') {
      const next = await afterStopped(session, 'tools', tools.byInterrupt);
      if (next.kind === 'finish') return session.finish(next.reason, next.error);
      continue;
    }

    // 5. Sessions of any length: at a turn boundary, hand the state to a fresh run (same workflow
    //    id) before history grows large.
    if (shouldContinueAsNew(workflowInfo().continueAsNewSuggested, input.continueAsNewAfterTurns, session.turnsThisRun) && patched('continue-as-new')) {
      return session.continueAsNew(rawInput);
    }
  }
}

/** Invalid input fails the workflow at once (a failure, not an exception that would retry the task forever). */
function validInput(rawInput: unknown): ResolvedAgentInput {
  const check = checkAgentInput(rawInput);
  if (!check.ok) throw ApplicationFailure.nonRetryable(check.message, ErrorType.InvalidWorkflowInput);
  return check.input;
}

type Called = { kind: 'outcome'; outcome: CallModelOutcome } | { kind: 'stopped'; byInterrupt: boolean } | { kind: 'failed'; error: string };

async function callModelInterruptibly(session: AgentSession): Promise<Called> {
  session.status('running_model');
  try {
    const request = callModelRequest(session.state);
    const outcome = await session.steering.interruptible('model', () =>
      callModel.executeWithOptions({ ...MODEL_OPTIONS, summary: modelCallSummary(session.state) }, [request]),
    );
    return { kind: 'outcome', outcome };
  } catch (error) {
    if (isCancellation(error)) return { kind: 'stopped', byInterrupt: session.steering.takeInterrupt() };
    return { kind: 'failed', error: failureMessage(error) };
  }
}
