import { ModelCallLimiter, limiterKey, rateLimitWaitMs } from '../../../../src/activities/model/rate-limits';

const headers = (values: Record<string, string>) => new Headers(values);
const DATE = 'Wed, 02 Dec 2026 17:00:00 GMT';
const AT = Date.parse(DATE);

test('the wait is the latest reset of the exhausted limits, from the response date, over retry-after', () => {
  const wait = rateLimitWaitMs(
    headers({
      date: DATE,
      'retry-after': '2',
      'anthropic-ratelimit-input-tokens-remaining': '0',
      'anthropic-ratelimit-input-tokens-reset': '2026-12-02T17:01:15Z',
      // Not exhausted: its sooner reset does not count.
      'anthropic-ratelimit-requests-remaining': '3999',
      'anthropic-ratelimit-requests-reset': '2026-12-02T17:00:01Z',
    }),
    AT + 30_000, // the worker's clock is off: the response's date is what counts
  );
  expect(wait).toBe(75_000);
});

test('with no limit said to be exhausted, every reset given counts; retry-after wins when later', () => {
  expect(
    rateLimitWaitMs(
      headers({
        date: DATE,
        'anthropic-ratelimit-tokens-reset': '2026-12-02T17:00:10Z',
        'anthropic-ratelimit-output-tokens-reset': '2026-12-02T17:00:20Z',
      }),
      AT,
    ),
  ).toBe(20_000);
  expect(rateLimitWaitMs(headers({ date: DATE, 'retry-after': '30' }), AT)).toBe(30_000);
  expect(rateLimitWaitMs(headers({ 'retry-after': 'Wed, 02 Dec 2026 17:00:05 GMT' }), AT)).toBe(5_000);
});

test('nothing said: no wait (the workflow backs off); nonsense is ignored', () => {
  expect(rateLimitWaitMs(undefined, AT)).toBeUndefined();
  expect(rateLimitWaitMs(headers({ date: DATE }), AT)).toBeUndefined();
  expect(
    rateLimitWaitMs(headers({ 'retry-after': 'soon', 'anthropic-ratelimit-tokens-reset': 'x' }), AT),
  ).toBeUndefined();
  // A reset already past: no wait left.
  expect(rateLimitWaitMs(headers({ date: DATE, 'anthropic-ratelimit-tokens-reset': '2026-12-02T16:59:00Z' }), AT)).toBe(
    0,
  );
});

test('the limiter blocks a key until its reset, and the key never holds the credentials', () => {
  const limiter = new ModelCallLimiter();
  limiter.block('k:model', 1_000);
  limiter.block('k:model', 500); // an earlier reset does not shorten the block
  expect(limiter.blockedFor('k:model', 400)).toBe(600);
  expect(limiter.blockedFor('k:other', 400)).toBe(0);
  expect(limiter.blockedFor('k:model', 1_000)).toBe(0);
  const key = limiterKey({ apiKey: 'sk-secret', baseURL: 'https://api.example' });
  expect(key).not.toContain('secret');
  expect(key).not.toBe(limiterKey({ apiKey: 'sk-other', baseURL: 'https://api.example' }));
});

test('at most maxInFlight calls hold a slot; the next waits for one, and a cancelled waiter leaves the queue', async () => {
  const limiter = new ModelCallLimiter(1);
  const release = await limiter.acquire();
  let second = false;
  const waiting = limiter.acquire().then((done) => ((second = true), done));
  const abort = new AbortController();
  const cancelled = limiter.acquire(abort.signal);
  abort.abort(new Error('cancelled'));
  await expect(cancelled).rejects.toThrow('cancelled');
  await Promise.resolve();
  expect(second).toBe(false);
  release();
  release(); // twice: the slot is given back once
  const releaseSecond = await waiting;
  expect(limiter.active).toBe(1);
  releaseSecond();
  expect(limiter.active).toBe(0);
});
