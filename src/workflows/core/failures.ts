import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';

/** The message people need: the API's own words for a model failure, not the wrapper's. */
export function failureMessage(error: unknown): string {
  if (error instanceof ActivityFailure) {
    const cause = error.cause;
    if (cause instanceof TimeoutFailure) return `Activity timed out (${cause.timeoutType})`;
    if (cause instanceof ApplicationFailure) return cause.message;
    if (cause) return cause.message;
  }
  return error instanceof Error ? error.message : String(error);
}
