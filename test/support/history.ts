import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';

export interface ScheduledActivity {
  type: string;
  summary: string;
}

/** Activities in the order the workflow scheduled them, with their UI summaries. */
export async function scheduledActivities(handle: WorkflowHandle): Promise<ScheduledActivity[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? [])
    .filter((event) => event.activityTaskScheduledEventAttributes)
    .map((event) => ({
      type: event.activityTaskScheduledEventAttributes!.activityType?.name ?? '',
      summary: summaryOf(event),
    }));
}

function summaryOf(event: temporal.api.history.v1.IHistoryEvent): string {
  const payload = event.userMetadata?.summary;
  return payload ? String(defaultPayloadConverter.fromPayload(payload as never)) : '';
}

export async function historySize(handle: WorkflowHandle): Promise<{ events: number; bytes: number }> {
  const description = await handle.describe();
  return { events: Number(description.historyLength), bytes: Number(description.historySize) };
}
