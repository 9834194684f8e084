/**
 * Rate limits waited out in the workflow (issue 26, patch `rate-limit-wait`): what a refused
 * model call leads to. Pure: the driver (turn/rate-limit-wait.ts) sleeps on a durable timer for
 * the wait decided here, then sends the same call again. No attempt cap while the API keeps
 * saying "wait": only the total time waited is bounded (input `maxRateLimitWaitMs`).
 */
import type { RateLimitedOutcome } from '../../shared/activity-io';
import {
  DEFAULT_MAX_RATE_LIMIT_WAIT_MS,
  RATE_LIMIT_BACKOFF_INITIAL_MS,
  RATE_LIMIT_BACKOFF_MAX_MS,
} from '../../shared/limits';
import type { RateLimitView } from '../../shared/contract';
import type { Finish } from './loop';
import { sent } from './loop';
import type { LoopState, RateLimitTracker } from './loop-state';

const NO_LIMITS: RateLimitTracker = { waitedMs: 0, refusals: 0, consecutive: 0 };

/** The shortest wait (a reset already past, or a limit that says 0): never a tight loop of requests. */
export const MIN_RATE_LIMIT_WAIT_MS = 1_000;

export type RateLimitDecision =
  { kind: 'wait'; state: LoopState; waitMs: number } | { kind: 'finish'; state: LoopState; finish: Finish };

/**
 * After a `rate_limited` outcome: wait what the API asked (retry-after and the resets), or back off
 * (1 s, doubling, at most 60 s) when it said nothing; end `rate_limited` when the wait would take
 * the session's total past `maxWaitMs`.
 */
export function afterRateLimited(
  previous: LoopState,
  outcome: RateLimitedOutcome,
  maxWaitMs = DEFAULT_MAX_RATE_LIMIT_WAIT_MS,
): RateLimitDecision {
  const tracker = previous.rateLimit ?? NO_LIMITS;
  const consecutive = tracker.consecutive + 1;
  const backoff = Math.min(RATE_LIMIT_BACKOFF_MAX_MS, RATE_LIMIT_BACKOFF_INITIAL_MS * 2 ** (consecutive - 1));
  const waitMs = Math.ceil(Math.max(MIN_RATE_LIMIT_WAIT_MS, outcome.waitMs ?? backoff));
  const refusals = tracker.refusals + (outcome.refused ? 1 : 0);
  const state: LoopState = { ...sent(previous, outcome), rateLimit: { ...tracker, refusals, consecutive } };
  if (tracker.waitedMs + waitMs > maxWaitMs) {
    const error =
      `${outcome.message} (the API asks to wait ${Math.ceil(waitMs / 1000)} s more; ` +
      `${Math.round(tracker.waitedMs / 1000)} s waited of maxRateLimitWaitMs ${maxWaitMs})`;
    return { kind: 'finish', state, finish: { kind: 'finish', reason: 'rate_limited', error } };
  }
  return { kind: 'wait', state, waitMs };
}

/** The wait is over: it counts towards the session's total. */
export function waited(state: LoopState, waitMs: number): LoopState {
  const tracker = state.rateLimit ?? NO_LIMITS;
  return { ...state, rateLimit: { ...tracker, waitedMs: tracker.waitedMs + waitMs } };
}

/** The model answered: the backoff starts over at the next limit. */
export function answered(state: LoopState): LoopState {
  if (!state.rateLimit?.consecutive) return state;
  return { ...state, rateLimit: { ...state.rateLimit, consecutive: 0 } };
}

/** What `state.rateLimit` shows (`untilMs`: the end of the wait now, if waiting). */
export function rateLimitView(tracker: RateLimitTracker | undefined, untilMs?: number): RateLimitView | undefined {
  if (!tracker) return undefined;
  return {
    until: untilMs === undefined ? null : new Date(untilMs).toISOString(),
    waitedMs: tracker.waitedMs,
    refusals: tracker.refusals,
  };
}
