/**
 * The context pipeline's decisions, before every model call (pure; the edits themselves run in
 * the prepareContext and compact activities, where the content is):
 *   1. tool-result budget — applied when each tool result is produced (runTool);
 *   2. snip — drop the oldest turns when the history is long;
 *   3. microcompact — clear old tool results;
 *   4. autocompact — summarise the conversation with the model;
 * each only when the previous was not enough.
 */
import {
  AUTOCOMPACT_BUFFER_TOKENS,
  AUTOCOMPACT_FAILURE_LIMIT,
  AUTOCOMPACT_OUTPUT_RESERVE_TOKENS,
  CHARS_PER_TOKEN,
  CONTEXT_EDIT_THRESHOLD_RATIO,
  LEARNED_WINDOW_BUFFER_SHARE,
  LEARNED_WINDOW_OUTPUT_SHARE,
  SNIP_MAX_MESSAGES,
  TOOL_RESULT_MAX_CHARS,
  TOOL_RESULT_WINDOW_SHARE,
  TOOL_RESULTS_PER_MESSAGE_MAX_CHARS,
  TOOL_RESULTS_PER_MESSAGE_WINDOW_SHARE,
} from '../../shared/limits';
import { estimateTokens, type LoopState } from './loop-state';

/**
 * Claude Code's threshold: context window − min(max output, 20,000) − 13,000 (with a floor for
 * small windows). A learned window (patch `compaction-fits`) scales both reserves with it: at
 * most a quarter of it for output and a tenth as buffer.
 */
export function autocompactThreshold(state: LoopState): number {
  const window = state.contextWindowTokens;
  const learned = state.learnedContextWindow !== undefined;
  const outputReserve = Math.min(
    state.maxOutputTokens,
    AUTOCOMPACT_OUTPUT_RESERVE_TOKENS,
    learned ? Math.floor(window * LEARNED_WINDOW_OUTPUT_SHARE) : Infinity,
  );
  const buffer = learned
    ? Math.min(AUTOCOMPACT_BUFFER_TOKENS, Math.floor(window * LEARNED_WINDOW_BUFFER_SHARE))
    : AUTOCOMPACT_BUFFER_TOKENS;
  const threshold = window - outputReserve - buffer;
  return state.autocompactFloorShare
    ? Math.max(threshold, Math.floor(state.contextWindowTokens * state.autocompactFloorShare))
    : threshold;
}

/** Where the cheap edits (snip, microcompact) start, and what they aim for. */
export function editThreshold(state: LoopState): number {
  return Math.floor(autocompactThreshold(state) * CONTEXT_EDIT_THRESHOLD_RATIO);
}

/**
 * Whether the cheap edits should run before this call: above the edit threshold (and, after a
 * pass, once the conversation has grown by half the way to the autocompact threshold), or when
 * the history is long.
 */
export function needsContextEdits(state: LoopState): boolean {
  if (state.messageCount + state.pendingMessages.length > SNIP_MAX_MESSAGES) return true;
  const estimate = estimateTokens(state);
  if (estimate <= editThreshold(state)) return false;
  return state.contextEditedAt === undefined || estimate >= state.contextEditedAt + contextEditStep(state);
}

/** How much the conversation grows between two passes of the cheap edits (flag `contextEditsDegradeAndPace`). */
export function contextEditStep(state: LoopState): number {
  return Math.max(0, Math.floor((autocompactThreshold(state) - editThreshold(state)) / 2));
}

/** Whether to summarise before this call; the circuit breaker stops after repeated failures. */
export function needsAutocompact(state: LoopState, estimatedTokens = estimateTokens(state)): boolean {
  return (
    estimatedTokens > autocompactThreshold(state) && state.consecutiveAutocompactFailures < AUTOCOMPACT_FAILURE_LIMIT
  );
}

export function afterAutocompact(state: LoopState, succeeded: boolean): LoopState {
  return { ...state, consecutiveAutocompactFailures: succeeded ? 0 : state.consecutiveAutocompactFailures + 1 };
}

/** Re-attached files after a compaction take at most a quarter of the autocompact threshold. */
export function reattachBudgetChars(state: LoopState): number {
  return Math.floor((autocompactThreshold(state) / 4) * CHARS_PER_TOKEN);
}

/** The tool-result budget of one result, scaled down for small context windows. */
export function toolResultMaxChars(state: LoopState): number {
  return Math.min(
    TOOL_RESULT_MAX_CHARS,
    Math.floor(state.contextWindowTokens * CHARS_PER_TOKEN * TOOL_RESULT_WINDOW_SHARE),
  );
}

/** The tool-result budget of one message's results, scaled down for small context windows. */
export function toolResultsPerMessageMaxChars(state: LoopState): number {
  return Math.min(
    TOOL_RESULTS_PER_MESSAGE_MAX_CHARS,
    Math.floor(state.contextWindowTokens * CHARS_PER_TOKEN * TOOL_RESULTS_PER_MESSAGE_WINDOW_SHARE),
  );
}
