/**
 * The worker's limiter around the Messages API (issue 26), against the fake API: a 429 with a
 * reset holds back the other calls of the same key and model (nothing sent), not those of
 * another model or key; the cap on requests in flight.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import type Anthropic from '@anthropic-ai/sdk';
import { ModelApi } from '../../../../src/activities/model/anthropic';
import { ModelCallLimiter } from '../../../../src/activities/model/rate-limits';
import { FakeAnthropicServer, RateLimitWindow, reply, text } from '../../../support/fake-anthropic';

let fake: FakeAnthropicServer;

beforeEach(async () => {
  fake = await FakeAnthropicServer.start(() => reply([text('ok')]));
});

afterEach(async () => {
  await fake.close();
});

const params = (model = 'claude-sonnet-5-5'): Anthropic.MessageCreateParamsNonStreaming => ({
  model,
  max_tokens: 100,
  messages: [{ role: 'user', content: 'hi' }],
});

const inActivity = <T>(work: () => Promise<T>) => new MockActivityEnvironment().run(work) as Promise<T>;

test('a 429 comes back as data with its wait, and the same key and model sends nothing before the reset', async () => {
  const limiter = new ModelCallLimiter();
  const window = new RateLimitWindow({ durationMs: 30_000 });
  fake.rateLimit = window;
  const api = ModelApi.fromSettings({ apiKey: 'key-a', baseURL: fake.url }, limiter);
  const refused = await inActivity(() => api.streamOrRateLimit(params(), 'Model call'));
  expect(refused).toMatchObject({ kind: 'rate_limited', refused: true });
  expect((refused as { waitMs: number }).waitMs).toBeGreaterThan(25_000);

  // Another session's call on the same key and model: not sent, the same wait handed back.
  const sameKey = ModelApi.fromSettings({ apiKey: 'key-a', baseURL: fake.url }, limiter);
  const held = await inActivity(() => sameKey.streamOrRateLimit(params(), 'Model call'));
  expect(held).toMatchObject({ kind: 'rate_limited', refused: false });
  expect(fake.requests).toHaveLength(1);

  // Another model, or another key: they find out for themselves.
  await inActivity(() => sameKey.streamOrRateLimit(params('claude-haiku-5-5'), 'Model call'));
  const otherKey = ModelApi.fromSettings({ apiKey: 'key-b', baseURL: fake.url }, limiter);
  await inActivity(() => otherKey.streamOrRateLimit(params(), 'Model call'));
  expect(fake.requests).toHaveLength(3);
  expect(window.refused).toBe(3);
});

test('without the workflow taking the wait (sessions from before issue 26), a 429 is still a retryable failure', async () => {
  fake.rateLimit = new RateLimitWindow({ durationMs: 30_000 });
  const api = ModelApi.fromSettings({ apiKey: 'key-a', baseURL: fake.url }, new ModelCallLimiter());
  await expect(inActivity(() => api.stream(params(), 'Model call'))).rejects.toMatchObject({
    type: 'ModelRateLimited',
    nonRetryable: false,
  });
});

test('AGENT_MODEL_CALLS_IN_FLIGHT: no more requests in flight than the cap', async () => {
  let inFlight = 0;
  let most = 0;
  fake.handler = async () => {
    most = Math.max(most, ++inFlight);
    await new Promise((resolve) => setTimeout(resolve, 50));
    inFlight--;
    return reply([text('ok')]);
  };
  const api = ModelApi.fromSettings({ apiKey: 'key-a', baseURL: fake.url }, new ModelCallLimiter(2));
  const replies = await Promise.all(
    Array.from({ length: 6 }, async () => inActivity(async () => api.streamOrRateLimit(params(), 'Model call'))),
  );
  expect(replies.every((answer) => answer.kind === 'message')).toBe(true);
  expect(most).toBe(2);
});
