/**
 * Fault injection: a harness whose worker fails one activity type every time (a worker
 * interceptor, so the real activities run for everything else).
 */
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, Next } from '@temporalio/worker';
import { Harness } from './harness';

class FailOne implements ActivityInboundCallsInterceptor {
  constructor(
    private readonly activityType: string,
    private readonly name: string,
  ) {}

  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    if (this.activityType === this.name) throw ApplicationFailure.nonRetryable('injected failure', 'InjectedFailure');
    return next(input);
  }
}

export async function harnessWithFailingActivity(name: string): Promise<Harness> {
  const harness = await Harness.start();
  await harness.startWorker(
    {},
    { interceptors: { activity: [(context) => ({ inbound: new FailOne(context.info.activityType, name) })] } },
  );
  return harness;
}
