import { Context } from '@temporalio/activity';
import { ACTIVITY_HEARTBEAT_INTERVAL_MS } from '../shared/limits';

/**
 * Heartbeats on a timer while `work` runs. Every activity runs under a short heartbeat timeout,
 * so when a worker is killed Temporal notices within seconds and retries the activity elsewhere,
 * instead of waiting for the start-to-close timeout. Heartbeats also deliver cancellation.
 */
export async function whileHeartbeating<T>(work: () => Promise<T>): Promise<T> {
  const context = Context.current();
  context.heartbeat();
  const timer = setInterval(() => context.heartbeat(), ACTIVITY_HEARTBEAT_INTERVAL_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
