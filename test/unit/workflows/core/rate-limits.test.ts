import type { RateLimitedOutcome } from '../../../../src/shared/activity-io';
import { afterRateLimited, answered, rateLimitView, waited } from '../../../../src/workflows/core/rate-limits';
import { loopState } from '../../../support/loop-state';

const refused = (waitMs: number | null, more: Partial<RateLimitedOutcome> = {}): RateLimitedOutcome => ({
  kind: 'rate_limited',
  conversationRef: 'sha256:sent',
  cause: 'rate_limit',
  refused: true,
  waitMs,
  message: 'Rate limited by the model API: slow down',
  ...more,
});

test('a refusal waits what the API asked, counts the refusal, and the request is the conversation now', () => {
  const state = loopState({ pendingMessages: [{ role: 'user', kind: 'text', content: { text: 'hi' } }] });
  const decision = afterRateLimited(state, refused(75_000));
  expect(decision).toMatchObject({ kind: 'wait', waitMs: 75_000 });
  expect(decision.state).toMatchObject({
    conversationRef: 'sha256:sent',
    pendingMessages: [],
    rateLimit: { refusals: 1, consecutive: 1, waitedMs: 0 },
  });
  expect(waited(decision.state, 75_000).rateLimit).toMatchObject({ waitedMs: 75_000 });
});

test('no wait said: backoff from 1 s, doubling, at most 60 s; an answer starts it over', () => {
  let state = loopState();
  const waits: number[] = [];
  for (let index = 0; index < 9; index++) {
    const decision = afterRateLimited(state, refused(null));
    if (decision.kind !== 'wait') throw new Error('expected a wait');
    waits.push(decision.waitMs);
    state = decision.state;
  }
  expect(waits).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
  expect(afterRateLimited(answered(state), refused(null))).toMatchObject({ waitMs: 1_000 });
});

test('a call not sent (another session hit the limit) waits without counting a refusal; never less than 1 s', () => {
  const decision = afterRateLimited(loopState(), refused(200, { refused: false }));
  expect(decision).toMatchObject({ kind: 'wait', waitMs: 1_000, state: { rateLimit: { refusals: 0 } } });
});

test('a wait that would pass maxRateLimitWaitMs ends the session rate_limited at once', () => {
  const state = loopState({ rateLimit: { waitedMs: 50_000, refusals: 3, consecutive: 0 } });
  expect(afterRateLimited(state, refused(10_000), 60_000)).toMatchObject({ kind: 'wait' });
  const decision = afterRateLimited(state, refused(10_001), 60_000);
  expect(decision).toMatchObject({
    kind: 'finish',
    finish: { reason: 'rate_limited', error: expect.stringContaining('maxRateLimitWaitMs 60000') },
    state: { rateLimit: { refusals: 4 } },
  });
});

test('state.rateLimit: the wait now and the totals', () => {
  expect(rateLimitView(undefined)).toBeUndefined();
  expect(rateLimitView({ waitedMs: 5, refusals: 2, consecutive: 1 }, Date.UTC(2026, 11, 2, 17))).toEqual({
    until: '2026-12-02T17:00:00.000Z',
    waitedMs: 5,
    refusals: 2,
  });
});
