/**
 * How big a compaction (summary) request may be: pure arithmetic over the context window (the
 * model table's, or the one learned from a "prompt is too long: N tokens > M maximum"), the
 * request's output and the estimate (chars/4, `CHARS_PER_TOKEN`). The compact activity fits the
 * conversation to these budgets and, refused anyway, shrinks by what the refusal says.
 */
import { COMPACTION_MAX_OUTPUT_TOKENS } from './limits';

/** The summary may take at most this share of the window as output (a 4,400-token window: 1,100). */
export const SUMMARY_OUTPUT_WINDOW_SHARE = 0.25;
/** The summary's output never goes below this (a summary needs room). */
export const SUMMARY_MIN_OUTPUT_TOKENS = 256;
/** Room left for the estimate's error: 2,000 tokens and 5% of the window, at most 10% of it. */
export const COMPACTION_FIT_MARGIN_TOKENS = 2_000;
export const COMPACTION_FIT_MARGIN_SHARE = 0.05;
export const COMPACTION_FIT_MARGIN_MAX_SHARE = 0.1;
/** Each new attempt is at most this share of the last one (a refusal never gets the same request). */
export const COMPACTION_SHRINK_AT_LEAST = 0.9;
/** A refusal without figures: shrink by this much. */
export const COMPACTION_SHRINK_BLIND = 0.7;

/** The summary request's max_tokens: Claude Code's 16,000 (at least the session's own), at most a quarter of the window. */
export function summaryMaxTokens(windowTokens: number, maxOutputTokens: number): number {
  const wanted = Math.min(COMPACTION_MAX_OUTPUT_TOKENS, Math.max(maxOutputTokens, 8_192));
  return Math.max(SUMMARY_MIN_OUTPUT_TOKENS, Math.min(wanted, Math.floor(windowTokens * SUMMARY_OUTPUT_WINDOW_SHARE)));
}

/** The margin kept for the estimate's error in a window of this size. */
export function fitMarginTokens(windowTokens: number): number {
  return Math.floor(
    Math.min(
      COMPACTION_FIT_MARGIN_TOKENS + windowTokens * COMPACTION_FIT_MARGIN_SHARE,
      windowTokens * COMPACTION_FIT_MARGIN_MAX_SHARE,
    ),
  );
}

/** The estimated input tokens a summary request may have: the window minus its output, less the margin. */
export function summaryInputBudget(windowTokens: number, maxTokens: number): number {
  return Math.max(0, windowTokens - maxTokens - fitMarginTokens(windowTokens));
}

/** What a refusal said: the request's size and the window, as the server counts them. */
export interface WindowRefusal {
  tokens: number;
  maximum: number;
}

/**
 * The budget of the next attempt after a request estimated at `estimatedTokens` was refused:
 * the server's window (minus the output and the margin), in the estimate's units (the server
 * counted `tokens` where we estimated `estimatedTokens`), and always smaller than the last budget
 * so the same request is never sent twice.
 */
export function budgetAfterRefusal(
  budget: number,
  estimatedTokens: number,
  refusal: WindowRefusal | undefined,
  maxTokens: number,
): number {
  const shrunk = Math.floor(Math.min(budget, estimatedTokens) * COMPACTION_SHRINK_AT_LEAST);
  if (!refusal || refusal.tokens <= 0) return Math.floor(Math.min(budget, estimatedTokens) * COMPACTION_SHRINK_BLIND);
  const serverPerEstimated = refusal.tokens / Math.max(1, estimatedTokens);
  const fits = summaryInputBudget(refusal.maximum, maxTokens) / Math.max(1, serverPerEstimated);
  return Math.max(0, Math.min(shrunk, Math.floor(fits)));
}
