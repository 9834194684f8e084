/**
 * Issue 26: a model call the API refused (429, or 529 with no fallback left) is waited out here,
 * on a durable timer: a worker killed during the wait loses nothing, and the wait shows as status
 * `waiting_rate_limit`, `state.rateLimit`, the UI's current details and the search attribute
 * `AgentRateLimitedUntil`. An interrupt or a cancellation stops the wait as it stops a model call.
 * Then the same call goes again (transition `rate_limit_retry`, no new turn).
 */
import { isCancellation, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import type { RateLimitedOutcome } from '../../shared/activity-io';
import { AGENT_RATE_LIMITED_UNTIL } from '../../shared/search-attributes';
import type { TurnOutcome } from '../core/loop';
import { withTransition } from '../core/loop-state';
import { afterRateLimited, answered, rateLimitView, waited } from '../core/rate-limits';
import type { AgentSession } from '../session/agent-session';
import { afterStopped } from './turn-end';

export async function waitOutRateLimit(session: AgentSession, outcome: RateLimitedOutcome): Promise<TurnOutcome> {
  const decision = afterRateLimited(session.state, outcome, session.input.maxRateLimitWaitMs);
  session.update(decision.state);
  if (decision.kind === 'finish') {
    session.view.showRateLimit(rateLimitView(decision.state.rateLimit));
    return decision.finish;
  }
  const untilMs = Date.now() + decision.waitMs;
  session.view.showRateLimit(rateLimitView(decision.state.rateLimit, untilMs));
  upsertSearchAttributes([{ key: AGENT_RATE_LIMITED_UNTIL, value: new Date(untilMs) }]);
  session.setStatus('waiting_rate_limit');
  try {
    await session.steering.interruptible('model', () => sleep(decision.waitMs));
  } catch (error) {
    if (!isCancellation(error)) throw error;
    cleared(session);
    return afterStopped(session, 'model', session.steering.takeInterrupt());
  }
  session.update(waited(session.state, decision.waitMs));
  cleared(session);
  session.update(withTransition(session.state, 'rate_limit_retry'), {
    transition: true,
    detail: `waited ${Math.round(decision.waitMs / 1000)} s`,
  });
  return { kind: 'continue' };
}

/** The wait is over (or stopped): the search attribute goes, the state keeps the totals. */
function cleared(session: AgentSession): void {
  upsertSearchAttributes([{ key: AGENT_RATE_LIMITED_UNTIL, value: null }]);
  session.view.showRateLimit(rateLimitView(session.state.rateLimit));
  session.setStatus('running_model');
}

/** A model call answered (anything but a rate limit): the next limit's backoff starts over. */
export function modelAnswered(session: AgentSession): void {
  if (session.state.rateLimit?.consecutive) session.update(answered(session.state));
}
