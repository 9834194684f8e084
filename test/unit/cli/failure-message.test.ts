import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { failureMessage } from '../../../src/cli/failure-message';

test("a failed activity's cause is said, not only Temporal's wrapper", () => {
  const cause = ApplicationFailure.nonRetryable('workdir: /nope does not exist on the worker host', 'InvalidWorkdir');
  const retry = RetryState.NON_RETRYABLE_FAILURE;
  const activity = new ActivityFailure('Activity task failed', 'prepareSession', '1', retry, undefined, cause);
  expect(failureMessage(activity)).toBe('Activity task failed: workdir: /nope does not exist on the worker host');
});

test('a message repeated by a layer is said once; a plain error is its message', () => {
  const inner = new Error('boom');
  expect(failureMessage(new Error('boom', { cause: inner }))).toBe('boom');
  expect(failureMessage(new Error('plain'))).toBe('plain');
});
