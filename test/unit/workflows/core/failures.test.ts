import { ActivityFailure, ApplicationFailure, RetryState, TimeoutFailure, TimeoutType } from '@temporalio/common';
import { failureMessage } from '../../../../src/workflows/core/failures';

test("an activity failure reads as its cause's own words", () => {
  const activity = (cause?: Error) =>
    new ActivityFailure('Activity task failed', 'callModel', '7', RetryState.NON_RETRYABLE_FAILURE, 'worker', cause);
  expect(
    failureMessage(
      activity(ApplicationFailure.nonRetryable('Model API refused the credentials (401)', 'ModelAuthentication')),
    ),
  ).toBe('Model API refused the credentials (401)');
  expect(failureMessage(activity(new TimeoutFailure(undefined, undefined, TimeoutType.START_TO_CLOSE)))).toBe(
    'Activity timed out (START_TO_CLOSE)',
  );
  expect(failureMessage(activity())).toBe('Activity task failed');
  expect(failureMessage('plain')).toBe('plain');
});
