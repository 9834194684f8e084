import { ApplicationFailure, type RetryPolicy } from '@temporalio/common';
import type { LiveChannel } from '../../../src/live/live-channel';
import { LivePublisher, nextAttemptDelayMs } from '../../../src/live/live-publisher';
import type { PublishedEvent } from '../../../src/shared/live-events';

const policy: RetryPolicy = {
  initialInterval: '2 seconds',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  maximumAttempts: 5,
  nonRetryableErrorTypes: ['ModelNotFound'],
};

describe('when Temporal will retry a failed attempt', () => {
  test("the retry policy's backoff, capped; a retry-after the failure carries wins", () => {
    const overloaded = ApplicationFailure.retryable('Overloaded', 'ModelOverloaded');
    expect(nextAttemptDelayMs(overloaded, { attempt: 1, retryPolicy: policy })).toBe(2000);
    expect(nextAttemptDelayMs(overloaded, { attempt: 2, retryPolicy: policy })).toBe(4000);
    expect(
      nextAttemptDelayMs(overloaded, { attempt: 4, retryPolicy: { ...policy, maximumInterval: '10 seconds' } }),
    ).toBe(10_000);
    const limited = ApplicationFailure.create({
      message: 'Rate limited',
      type: 'ModelRateLimited',
      nextRetryDelay: 30_000,
    });
    expect(nextAttemptDelayMs(limited, { attempt: 1, retryPolicy: policy })).toBe(30_000);
  });

  test('no retry: the last attempt, a non-retryable failure or type', () => {
    const overloaded = ApplicationFailure.retryable('Overloaded', 'ModelOverloaded');
    expect(nextAttemptDelayMs(overloaded, { attempt: 5, retryPolicy: policy })).toBeUndefined();
    expect(
      nextAttemptDelayMs(ApplicationFailure.nonRetryable('Refused', 'ModelAuthentication'), {
        attempt: 1,
        retryPolicy: policy,
      }),
    ).toBeUndefined();
    expect(
      nextAttemptDelayMs(ApplicationFailure.retryable('No such model', 'ModelNotFound'), {
        attempt: 1,
        retryPolicy: policy,
      }),
    ).toBeUndefined();
  });
});

describe('what an activity publishes', () => {
  function recorder() {
    const batches: PublishedEvent[][] = [];
    const channel: LiveChannel = {
      publish: async (_id, events) => void batches.push(events),
      subscribe: async () => async () => undefined,
      close: async () => undefined,
    };
    return { channel, batches };
  }

  test('deltas numbered from 0 without gaps, a long one split, sent together in one batch', async () => {
    const { channel, batches } = recorder();
    const publisher = new LivePublisher(channel, 'agent-1', 4, 2);
    publisher.delta('text', 'a');
    publisher.delta('text', 'b'.repeat(2500));
    publisher.delta('thinking', 'c');
    await publisher.flush();
    expect(batches).toHaveLength(1);
    const deltas = batches[0]! as Extract<PublishedEvent, { type: 'text_delta' }>[];
    expect(
      deltas.map((event) => [event.index, event.text.length, event.kind, event.attempt, event.turn, event.workflowId]),
    ).toEqual([
      [0, 1, 'text', 2, 4, 'agent-1'],
      [1, 1000, 'text', 2, 4, 'agent-1'],
      [2, 1000, 'text', 2, 4, 'agent-1'],
      [3, 500, 'text', 2, 4, 'agent-1'],
      [4, 1, 'thinking', 2, 4, 'agent-1'],
    ]);
  });

  test("a retry says whether the attempt's streamed text is void", async () => {
    const { channel, batches } = recorder();
    const publisher = new LivePublisher(channel, 'agent-1', 1, 1);
    const info = { attempt: 1, retryPolicy: policy } as never;
    publisher.retrying(ApplicationFailure.retryable('Overloaded', 'ModelOverloaded'), info);
    publisher.delta('text', 'partial');
    publisher.retrying(ApplicationFailure.retryable('Overloaded', 'ModelOverloaded'), info);
    await publisher.flush();
    expect(batches.flat().filter((event) => event.type === 'retry')).toMatchObject([
      { attempt: 1, nextAttempt: 2, delayMs: 2000, reason: 'ModelOverloaded', replaced: false },
      { replaced: true },
    ]);
  });

  test('without a channel nothing is queued or sent', async () => {
    const publisher = new LivePublisher(undefined, 'agent-1', 1, 1);
    publisher.delta('text', 'x');
    await expect(publisher.flush()).resolves.toBeUndefined();
  });
});
