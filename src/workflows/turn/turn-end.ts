/**
 * The end of a turn without tool calls (stop hooks, then the decision of core/turn-end-rules.ts),
 * what follows an interrupt, and the durable wait of interactive sessions for the next message.
 */
import { ActivityCancellationType, condition, isCancellation } from '@temporalio/workflow';
import type { StopHookOutcome } from '../../shared/activity-io';
import { runStopHooks, STOP_HOOK_OPTIONS } from '../activity-options';
import type { AgentSession } from '../session/agent-session';
import { failureMessage } from '../core/failures';
import { afterStop, type TurnOutcome, uncountTurn } from '../core/loop';
import { applyRewind, type RewindSession } from './rewind';
import { continueWith } from '../core/loop-state';
import { screeningNeeded, screenQueued, type PromptHookSession } from './prompt-hooks';
import { commonHookFields } from './tool-hooks';
import { stopHookRequest } from '../core/requests';
import { matchingPromptHooks } from '../../shared/hooks';
import { sessionToolHooks } from './tool-hooks';
import { decideStopHook, decideTurnEnd, type StopHookDecision } from '../core/turn-end-rules';

/** What the end of a turn uses of the session: a phase takes what it needs, not the whole session. */
export type TurnEndSession = Pick<
  AgentSession,
  | 'background'
  | 'features'
  | 'host'
  | 'id'
  | 'input'
  | 'note'
  | 'permissionMode'
  | 'noteSnapshot'
  | 'recordSnapshot'
  | 'setStatus'
  | 'snapshotAfter'
  | 'state'
  | 'steering'
  | 'stopHooks'
  | 'takeMessages'
  | 'update'
  | 'workspace'
  | 'workspaceReady'
> &
  PromptHookSession &
  RewindSession;

const CONTINUE: TurnOutcome = { kind: 'continue' };

/** The model ended its turn without tool calls: stop hooks, token budget, people, or the end. */
export async function endTurn(session: TurnEndSession): Promise<TurnOutcome> {
  const hook = await runHooks(session);
  if (screeningNeeded(session)) await screenQueued(session);
  // The turn ends with the model's answer: a point a rewind or a fork can go back to.
  session.workspace.checkpoint(false);
  const end = decideTurnEnd(session.state, {
    hook,
    tokenBudget: session.input.tokenBudget,
    queued: session.steering.queued,
    interactive: session.input.interactive,
    hookBlockKeepsReactiveCompact: session.features.stopHookBlockKeepsCompactBudget,
    stopHookLimit: session.features.stopHookLimit,
    ...(session.input.outputFormat ? { structuredOutput: true } : {}),
  });
  if (end.kind === 'continue') {
    if (end.takesQueued) session.takeMessages();
    session.update(end.state, { transition: true });
    return CONTINUE;
  }
  if (end.kind === 'wait_for_message')
    return (await waitForMessage(session)) ? CONTINUE : { kind: 'finish', reason: 'completed' };
  return end;
}

/** Runs the session's stop hooks, if it has any; a hook that cannot run does not block the end. */
async function runHooks(session: TurnEndSession): Promise<StopHookDecision> {
  const hooks = session.stopHooks;
  // Stop's `prompt` hooks (the small model judges them) run in the same activity, after the commands.
  // (Not a sub-agent's: like its stop hooks, they are its parent's business.)
  const prompts = session.input.parentSession ? [] : matchingPromptHooks(sessionToolHooks(session), 'Stop');
  if (hooks.length === 0 && prompts.length === 0) return { kind: 'allow' };
  if (session.features.durableWorkspace) await session.workspaceReady();
  // Hooks are commands: people see them as tools running, and a cancellation stops them as such.
  if (session.features.cancellationEndsWithResult) session.setStatus('running_tools');
  let outcome: StopHookOutcome;
  try {
    // Hooks are commands with effects: a cancelled workflow waits for them to stop (flag `cancellationEndsWithResult`).
    const waitForCancellation = session.features.cancellationEndsWithResult
      ? { cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED }
      : {};
    const snapshotRef = session.workspace.latestRef;
    outcome = await session.host.call((where) =>
      runStopHooks.executeWithOptions(
        { ...STOP_HOOK_OPTIONS, ...waitForCancellation, ...where, summary: 'stop hooks' },
        [
          {
            ...stopHookRequest(session.id, session.state, hooks),
            // A sub-agent's stop hooks are SubagentStop hooks; every hook reads the mode (and agent).
            ...(session.input.parentSession ? { event: 'SubagentStop' as const } : {}),
            ...commonHookFields(session),
            ...(prompts.length ? { prompts } : {}),
            ...(snapshotRef ? { snapshotRef } : {}),
          },
        ],
      ),
    );
  } catch (error) {
    if (isCancellation(error)) throw error;
    outcome = { kind: 'allow', reports: [`Stop hooks could not run: ${failureMessage(error)}`] };
  }
  // Hooks are commands: what they changed is snapshotted (by their activity, else by one of its
  // own) before the loop goes on.
  const turn = session.state.turnCount;
  if (outcome.snapshot) session.recordSnapshot(turn, outcome.snapshot);
  else if (session.workspace.latestRef) await session.snapshotAfter(turn);
  session.noteSnapshot(turn);
  for (const report of outcome.reports) session.note({ type: 'stop_hook', outcome: 'allow', detail: report });
  const decision = decideStopHook(outcome, session.state.consecutiveStopHookBlocks);
  if (decision.kind !== 'allow')
    session.note({ type: 'stop_hook', outcome: outcome.kind, detail: 'reason' in outcome ? outcome.reason : '' });
  return decision;
}

/** An interrupt (or the workflow's cancellation) stopped the model call or the tools. */
export async function afterStopped(
  session: TurnEndSession,
  stopped: 'model' | 'tools',
  byInterrupt: boolean,
): Promise<TurnOutcome> {
  if (session.workspace.rewindPending) {
    // Stopped for a rewind, carried out at the top of the loop. Should it be refused, a model
    // call stopped before its answer starts over as the same turn.
    session.steering.takeInterrupt();
    session.steering.interruptDone();
    if (stopped === 'model') session.update(uncountTurn(session.state));
    return CONTINUE;
  }
  if (byInterrupt) {
    // An interrupt stops the session's background commands too.
    if (session.background.running()) await session.background.stopAll();
    session.note({ type: 'interrupt', stopped });
    session.steering.interruptDone();
  }
  const next = afterStop(stopped, byInterrupt, session.input.interactive);
  if (next.kind === 'finish') return next;
  return (await waitForMessage(session)) ? CONTINUE : next.otherwise;
}

/** Carries out a rewind between turns; one that leaves the session at an answer waits for the next message. */
export async function rewindBetweenTurns(session: TurnEndSession): Promise<TurnOutcome> {
  const rewind = await applyRewind(session);
  if (rewind.applied && !rewind.endsWithUser)
    return (await waitForMessage(session)) ? CONTINUE : { kind: 'finish', reason: 'completed' };
  return CONTINUE;
}

/** Interactive sessions wait (durably, for days if need be) for the next message, `end`, or a rewind. */
export async function waitForMessage(session: TurnEndSession): Promise<boolean> {
  for (;;) {
    session.setStatus('waiting_input');
    try {
      await condition(
        () => session.steering.queued.length > 0 || session.steering.ended || session.workspace.rewindPending,
      );
    } catch (error) {
      // Cancelling the workflow while it waits closes the session, as `end` does.
      if (session.features.cancellationEndsWithResult && isCancellation(error)) return false;
      throw error;
    }
    if (!session.workspace.rewindPending) {
      // Messages pass their UserPromptSubmit hooks first: if they block them all, the wait goes on.
      if (screeningNeeded(session)) await screenQueued(session);
      if (session.steering.queued.length > 0 || session.steering.ended) break;
      continue;
    }
    // A rewind to tool results goes on with the model; to an answer (or refused), it waits again.
    const rewind = await applyRewind(session);
    if (rewind.applied && rewind.endsWithUser) return true;
  }
  const texts = session.takeMessages();
  if (texts.length === 0) return false;
  session.update(continueWith(session.state, texts.join('\n\n'), 'user_message'), { transition: true });
  return true;
}
