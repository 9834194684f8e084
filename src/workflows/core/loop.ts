/**
 * The loop's decisions as pure functions over plain data: `next step = f(state, outcome)`.
 * No Temporal APIs here, so unit tests cover every branch without a server, and the workflow
 * driver (agent-workflow.ts) only carries out what these functions decide. What follows the end
 * of a turn is decided in turn-end-rules.ts.
 */
import type { CallModelOutcome, PlannedToolUse } from '../../shared/activity-io';
import type { TerminalReason, Transition } from '../../shared/contract';
import { addUsage, type ConversationMessage } from '../../shared/conversation';
import { promptTooLongNumbers } from '../../shared/errors';
import { ESCALATED_MAX_OUTPUT_TOKENS, MAX_OUTPUT_TOKENS_RECOVERY_LIMIT } from '../../shared/limits';
import { type LoopState, NEW_TURN } from './loop-state';

export type ModelResponse = Extract<CallModelOutcome, { kind: 'response' }>;

/** What the driver does next. */
export type Step =
  | { kind: 'run_tools'; toolUses: PlannedToolUse[] }
  | { kind: 'call_model'; transition: Transition }
  | { kind: 'edit_context'; edit: 'collapse' | 'media_strip'; transition: Transition }
  | { kind: 'compact'; transition: Transition }
  | { kind: 'finish'; reason: TerminalReason; error?: string };

/** A step after the recovery layers had their say: never one of theirs. */
export type SettledStep = Exclude<Step, { kind: 'edit_context' | 'compact' }>;

export type Finish = Extract<Step, { kind: 'finish' }>;

/**
 * What a turn, or a phase of it, leaves the loop to do: go on to the next model call, or end the
 * session. `afterTools`: the turn ended with tool results (sessions recorded before
 * `continueAsNewAtEveryBoundary` continue as new only then).
 */
export type TurnOutcome = { kind: 'continue'; afterTools?: true } | Finish;

export interface Decision {
  state: LoopState;
  step: Step;
}

/** Sent after a cut-off reply (Claude Code's wording): continue, do not start over. */
export const RESUME_AFTER_MAX_TOKENS =
  'Output token limit hit. Resume directly — no apology, no recap of what you were doing. ' +
  'Pick up mid-thought if that is where the cut happened. Break remaining work into smaller pieces.';

/** Before each model call: a new turn is counted (or the turn limit ends the run); a retry is not. */
export function beginTurn(
  state: LoopState,
): { kind: 'call_model'; state: LoopState } | { kind: 'finish'; reason: TerminalReason } {
  if (!NEW_TURN.includes(state.lastTransition)) return { kind: 'call_model', state };
  if (state.turnCount >= state.maxTurns) return { kind: 'finish', reason: 'max_turns' };
  return { kind: 'call_model', state: { ...state, turnCount: state.turnCount + 1 } };
}

/** A model call stopped before it answered (for a rewind): the turn it counted is counted again when it starts over. */
export function uncountTurn(state: LoopState): LoopState {
  return NEW_TURN.includes(state.lastTransition) ? { ...state, turnCount: Math.max(0, state.turnCount - 1) } : state;
}

/** The request was sent (and answered or refused): it is now the conversation. */
export function sent(state: LoopState, outcome: CallModelOutcome): LoopState {
  const messageCount =
    outcome.kind === 'response' ? outcome.messageCount : state.messageCount + state.pendingMessages.length;
  return { ...state, conversationRef: outcome.conversationRef, messageCount, pendingMessages: [] };
}

function assistantMessage(response: ModelResponse): ConversationMessage {
  return { role: 'assistant', kind: 'assistant', ref: response.assistant.ref, chars: response.assistant.chars };
}

/**
 * What follows a model call: every recovery layer that answers to the model's outcome.
 * `learnWindow` (flag `learnsContextWindow`): a "prompt is too long: N tokens > M maximum" tells
 * the real context window, used from then on (an endpoint may serve less than the model table says).
 */
export function afterModel(
  previous: LoopState,
  outcome: CallModelOutcome,
  { learnWindow = false, keepLearnedWindow = false } = {},
): Decision {
  const state = sent(previous, outcome);
  switch (outcome.kind) {
    case 'prompt_too_long':
      return afterPromptTooLong(state, outcome.message, learnWindow, keepLearnedWindow);
    case 'media_too_large':
      return afterMediaTooLarge(state, outcome.message);
    case 'overloaded':
      return afterOverloaded(state, outcome.message);
    case 'rate_limited':
      // The driver waits these out (rate-limits.ts); one that reaches here ends the session.
      return { state, step: { kind: 'finish', reason: 'rate_limited', error: outcome.message } };
    default:
      return afterResponse(state, outcome);
  }
}

/** Withheld: first archive older turns without a model call (never twice in a row), then one full summary per turn, then give up. */
function afterPromptTooLong(
  sentState: LoopState,
  message: string,
  learnWindow: boolean,
  keepLearnedWindow: boolean,
): Decision {
  let state = sentState;
  const window = learnWindow ? promptTooLongNumbers(message)?.maximum : undefined;
  if (window !== undefined && window < state.contextWindowTokens) {
    state = { ...state, contextWindowTokens: window, ...(keepLearnedWindow ? { learnedContextWindow: window } : {}) };
  }
  // Stop hooks never run on this path.
  if (state.lastTransition !== 'collapse_drain_retry' && !state.hasAttemptedReactiveCompact) {
    return { state, step: { kind: 'edit_context', edit: 'collapse', transition: 'collapse_drain_retry' } };
  }
  if (!state.hasAttemptedReactiveCompact) {
    return {
      state: { ...state, hasAttemptedReactiveCompact: true },
      step: { kind: 'compact', transition: 'reactive_compact_retry' },
    };
  }
  return { state, step: { kind: 'finish', reason: 'prompt_too_long', error: message } };
}

/** Withheld: strip the media once, then give up. */
function afterMediaTooLarge(state: LoopState, message: string): Decision {
  if (!state.hasAttemptedMediaStrip) {
    return {
      state: { ...state, hasAttemptedMediaStrip: true },
      step: { kind: 'edit_context', edit: 'media_strip', transition: 'media_strip_retry' },
    };
  }
  return { state, step: { kind: 'finish', reason: 'image_error', error: message } };
}

/** Overloaded beyond the activity's retries: the fallback model once, if there is one. */
function afterOverloaded(state: LoopState, message: string): Decision {
  if (state.fallbackModel && state.model !== state.fallbackModel) {
    return {
      state: { ...state, model: state.fallbackModel },
      step: { kind: 'call_model', transition: 'model_fallback_retry' },
    };
  }
  return { state, step: { kind: 'finish', reason: 'model_error', error: message } };
}

/** A reply: its usage counted; cut off (escalate, then resume), tools to run, or the turn's end. */
function afterResponse(sentState: LoopState, outcome: ModelResponse): Decision {
  const usage = outcome.usage;
  const state: LoopState = {
    ...sentState,
    usage: addUsage(sentState.usage, usage),
    contextTokens: usage.inputTokens + usage.cacheCreationInputTokens + usage.cacheReadInputTokens,
    finalText: outcome.text || sentState.finalText,
  };
  if (outcome.stopReason === 'max_tokens' || outcome.stopReason === 'model_context_window_exceeded') {
    return afterCutOff(state, outcome);
  }
  const answered = { ...state, pendingMessages: [assistantMessage(outcome)] };
  // Any tool_use block needs a tool_result before the conversation can go on, whatever the
  // stop_reason says (Claude Code follows up on tool_use blocks, not on the stop reason).
  if (outcome.toolUses.length > 0) return { state: answered, step: { kind: 'run_tools', toolUses: outcome.toolUses } };
  switch (outcome.stopReason) {
    case 'pause_turn':
      // The API paused a long turn: sending the content back lets it continue.
      return { state: answered, step: { kind: 'call_model', transition: 'pause_turn_continue' } };
    case 'refusal':
      return {
        state: answered,
        step: {
          kind: 'finish',
          reason: 'model_error',
          error: 'The model declined to continue (stop_reason: refusal).',
        },
      };
    default:
      // end_turn, stop_sequence, a tool_use stop without blocks, or a reason this code does not know.
      return { state: answered, step: { kind: 'finish', reason: 'completed' } };
  }
}

/** A reply cut off at the output limit: the same request with room to finish, then "resume" messages, then give up. */
function afterCutOff(state: LoopState, outcome: ModelResponse): Decision {
  const escalated = Math.min(ESCALATED_MAX_OUTPUT_TOKENS, state.modelMaxOutputTokens);
  if (
    state.maxOutputTokensOverride === null &&
    state.maxOutputTokensRecoveryCount === 0 &&
    escalated > state.maxOutputTokens
  ) {
    // The cut-off reply is withheld, not appended.
    return {
      state: { ...state, maxOutputTokensOverride: escalated },
      step: { kind: 'call_model', transition: 'max_output_tokens_escalate' },
    };
  }
  if (state.maxOutputTokensRecoveryCount < MAX_OUTPUT_TOKENS_RECOVERY_LIMIT) {
    return {
      state: {
        ...state,
        maxOutputTokensRecoveryCount: state.maxOutputTokensRecoveryCount + 1,
        pendingMessages: [
          assistantMessage(outcome),
          { role: 'user', kind: 'text', content: { text: RESUME_AFTER_MAX_TOKENS } },
        ],
      },
      step: { kind: 'call_model', transition: 'max_output_tokens_recovery' },
    };
  }
  return { state, step: { kind: 'finish', reason: 'max_output_tokens' } };
}

/**
 * Sessions started before the recovery layers existed (replaying without the `recovery-layers`
 * patch marker) keep the old behaviour: every outcome a layer would now recover from ends the run.
 */
export function withoutRecovery(step: Step, outcome: CallModelOutcome): Step {
  const recovering =
    step.kind === 'edit_context' ||
    step.kind === 'compact' ||
    (step.kind === 'call_model' && step.transition !== 'pause_turn_continue');
  if (!recovering) return step;
  if (outcome.kind === 'prompt_too_long') return { kind: 'finish', reason: 'prompt_too_long', error: outcome.message };
  if (outcome.kind === 'response') return { kind: 'finish', reason: 'max_output_tokens' };
  return { kind: 'finish', reason: 'model_error', error: outcome.message };
}

/** After a context collapse: retry when it archived something, else go on to the next layer. */
export function afterCollapse(state: LoopState, changed: boolean, message: string): Decision {
  if (changed) return { state, step: { kind: 'call_model', transition: 'collapse_drain_retry' } };
  if (!state.hasAttemptedReactiveCompact) {
    return {
      state: { ...state, hasAttemptedReactiveCompact: true },
      step: { kind: 'compact', transition: 'reactive_compact_retry' },
    };
  }
  return { state, step: { kind: 'finish', reason: 'prompt_too_long', error: message } };
}

/** After stripping media from the conversation: retry when something went, else the error stands. */
export function afterMediaStrip(changed: boolean, message: string): SettledStep {
  return changed
    ? { kind: 'call_model', transition: 'media_strip_retry' }
    : { kind: 'finish', reason: 'image_error', error: message };
}

/** After a reactive compaction: retry with the summary, or give up saying why it failed. */
export function afterReactiveCompact(
  compacted: { ok: true } | { ok: false; error: string },
  message: string,
): SettledStep {
  if (compacted.ok) return { kind: 'call_model', transition: 'reactive_compact_retry' };
  return {
    kind: 'finish',
    reason: 'prompt_too_long',
    error: `${message} (reactive compaction failed: ${compacted.error})`,
  };
}

/**
 * An interrupt or a cancellation of the workflow stopped the model call or the tools: an
 * interrupted interactive session waits for the next message; anything else ends, saying what
 * was stopped.
 */
export function afterStop(
  stopped: 'model' | 'tools',
  byInterrupt: boolean,
  interactive: boolean,
): Finish | { kind: 'wait_for_message'; otherwise: Finish } {
  const reason = stopped === 'model' ? 'aborted_streaming' : 'aborted_tools';
  const what = stopped === 'model' ? 'the model was responding' : 'tools were running';
  if (!byInterrupt) return { kind: 'finish', reason, error: `Cancelled while ${what}` };
  const finish: Finish = { kind: 'finish', reason, error: `Interrupted while ${what}` };
  return interactive ? { kind: 'wait_for_message', otherwise: finish } : finish;
}

/** Continue as new when Temporal suggests it (history nearing its limits) or after the input's turns per run. */
export function shouldContinueAsNew(suggested: boolean, afterTurns: number | undefined, turnsThisRun: number): boolean {
  return suggested || (afterTurns !== undefined && turnsThisRun >= afterTurns);
}
