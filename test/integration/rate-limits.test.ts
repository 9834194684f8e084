/**
 * Issue 26: rate limits waited out in the workflow. The fake refuses every request of a window
 * with 429, `retry-after: 2` and the exhausted limit's reset: the session waits on a durable timer
 * (a worker SIGKILLed meanwhile loses nothing) and completes; sessions sharing a key back off
 * together; `maxRateLimitWaitMs` ends a session `rate_limited`.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { AgentResult, AgentState } from '../../src/shared/contract';
import { AGENT_RATE_LIMITED_UNTIL } from '../../src/shared/search-attributes';
import { stateQuery } from '../../src/workflows/definitions';
import { byTurn, RateLimitWindow, reply, text, toolUse } from '../support/fake-anthropic';
import { Harness, killProcess, makeRepo } from '../support/harness';

jest.setTimeout(240_000);

let harness: Harness | undefined;

afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

/** Read a file, then answer: two model calls. */
const READ_THEN_ANSWER = byTurn([
  reply([toolUse('Read', { file_path: 'notes.txt' })]),
  reply([text('Read the notes.')]),
]);

async function stateOnceWaiting(handle: WorkflowHandle): Promise<AgentState> {
  for (;;) {
    const state = await handle.query(stateQuery);
    if (state.status === 'waiting_rate_limit') return state;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('75 s of 429s with reset headers and a worker SIGKILLed during the wait: the session completes, the limit refused once', async () => {
  harness = await Harness.start(READ_THEN_ANSWER);
  // The first call is answered; every call of the next 75 s is refused.
  const window = new RateLimitWindow({ durationMs: 75_000, startAfter: 1 });
  harness.fake.rateLimit = window;
  const first = await harness.startWorkerProcess();
  const handle = await harness.start({ prompt: 'Read notes.txt', workdir: makeRepo({ 'notes.txt': 'hello\n' }) });

  await window.firstRefusal;
  const waiting = await stateOnceWaiting(handle);
  expect(waiting.rateLimit).toMatchObject({ refusals: 1, waitedMs: 0 });
  // The wait runs to the exhausted limit's reset (the window's end), not to retry-after's 2 s.
  const until = Date.parse(waiting.rateLimit!.until!);
  expect(until).toBeGreaterThanOrEqual(window.windowEnd! - 1_000);
  const described = await handle.describe();
  expect(described.typedSearchAttributes.get(AGENT_RATE_LIMITED_UNTIL)?.getTime()).toBe(until);
  await killProcess(first);
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  await harness.startWorkerProcess();

  const result = (await handle.result()) as AgentResult;
  expect(result).toMatchObject({ reason: 'completed', finalText: 'Read the notes.', turnCount: 2 });
  expect(Date.now()).toBeGreaterThanOrEqual(window.windowEnd!);
  expect(window.refused).toBeGreaterThanOrEqual(1);
  expect(window.refused).toBeLessThanOrEqual(12);
  const state = await handle.query(stateQuery);
  expect(state.transitions).toContain('rate_limit_retry');
  expect(state.rateLimit).toMatchObject({ until: null, refusals: window.refused });
  expect(state.rateLimit!.waitedMs).toBeGreaterThanOrEqual(70_000);
  expect((await handle.describe()).typedSearchAttributes.get(AGENT_RATE_LIMITED_UNTIL)).toBeUndefined();
});

test('two sessions on one key under a limit both finish, and the refused requests do not double', async () => {
  harness = await Harness.start(READ_THEN_ANSWER);
  await harness.startWorker();
  const workdir = () => makeRepo({ 'notes.txt': 'hello\n' });

  // One session alone: its first call opens a 5 s window.
  const alone = new RateLimitWindow({ durationMs: 5_000 });
  harness.fake.rateLimit = alone;
  expect(await harness.run({ prompt: 'Read notes.txt', workdir: workdir() })).toMatchObject({ reason: 'completed' });

  // Two sessions on the same key and model: the second starts while the first waits out its limit.
  const shared = new RateLimitWindow({ durationMs: 5_000 });
  harness.fake.rateLimit = shared;
  const a = await harness.start({ prompt: 'Read notes.txt', workdir: workdir() });
  await shared.firstRefusal;
  const b = await harness.start({ prompt: 'Read notes.txt', workdir: workdir() });
  const [resultA, resultB] = (await Promise.all([a.result(), b.result()])) as AgentResult[];
  expect(resultA).toMatchObject({ reason: 'completed' });
  expect(resultB).toMatchObject({ reason: 'completed' });
  expect(shared.refused).toBeLessThanOrEqual(alone.refused);
  // The second session waited for the first one's reset without sending into the window.
  const stateB = await b.query(stateQuery);
  expect(stateB.transitions).toContain('rate_limit_retry');
  expect(stateB.rateLimit?.refusals).toBe(0);
});

test('a limit longer than maxRateLimitWaitMs ends the session rate_limited at once, its work kept', async () => {
  harness = await Harness.start(READ_THEN_ANSWER);
  await harness.startWorker();
  harness.fake.rateLimit = new RateLimitWindow({ durationMs: 60_000, startAfter: 1 });
  const handle = await harness.start({
    prompt: 'Read notes.txt',
    workdir: makeRepo({ 'notes.txt': 'hello\n' }),
    maxRateLimitWaitMs: 10_000,
  });
  const result = (await handle.result()) as AgentResult;
  expect(result).toMatchObject({ reason: 'rate_limited', turnCount: 2 });
  expect(result.error).toMatch(/maxRateLimitWaitMs 10000/);
  const state = await handle.query(stateQuery);
  expect(state.rateLimit).toMatchObject({ refusals: 1, waitedMs: 0, until: null });
});

test('an interrupt stops a rate-limit wait as it stops a model call', async () => {
  harness = await Harness.start(READ_THEN_ANSWER);
  await harness.startWorker();
  harness.fake.rateLimit = new RateLimitWindow({ durationMs: 60_000, startAfter: 1 });
  const handle = await harness.start({ prompt: 'Read notes.txt', workdir: makeRepo({ 'notes.txt': 'hello\n' }) });
  await stateOnceWaiting(handle);
  await handle.executeUpdate('interrupt');
  const result = (await handle.result()) as AgentResult;
  expect(result).toMatchObject({ reason: 'aborted_streaming', error: 'Interrupted while the model was responding' });
  expect((await handle.describe()).typedSearchAttributes.get(AGENT_RATE_LIMITED_UNTIL)).toBeUndefined();
});
