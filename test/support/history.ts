import type { Client, WorkflowHandle } from '@temporalio/client';
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

/** Each activity that ran: its type, the queue it was scheduled on, and the host that ran it (worker identity `<host>/<pid>`). */
export async function activityRuns(handle: WorkflowHandle): Promise<{ type: string; queue: string; host: string }[]> {
  const events = (await handle.fetchHistory()).events ?? [];
  return events
    .filter((event) => event.activityTaskStartedEventAttributes)
    .map((started) => {
      const scheduled = events.find(
        (event) => String(event.eventId) === String(started.activityTaskStartedEventAttributes!.scheduledEventId),
      )!.activityTaskScheduledEventAttributes!;
      return {
        type: scheduled.activityType!.name!,
        queue: scheduled.taskQueue!.name!,
        host: started.activityTaskStartedEventAttributes!.identity!.split('/')[0]!,
      };
    });
}

/**
 * The size in bytes of each activity input the session scheduled, every run of it (continue-as-new
 * included), in order: what history holds of each.
 */
export async function activityInputSizes(
  client: Client,
  workflowId: string,
  firstRunId: string,
): Promise<{ type: string; bytes: number }[]> {
  const sizes: { type: string; bytes: number }[] = [];
  for (let runId: string | undefined = firstRunId; runId;) {
    const history: temporal.api.history.v1.IHistory = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events = history.events ?? [];
    for (const event of events) {
      const scheduled = event.activityTaskScheduledEventAttributes;
      if (scheduled)
        sizes.push({
          type: scheduled.activityType?.name ?? '',
          bytes: (scheduled.input?.payloads ?? []).reduce((sum, payload) => sum + (payload.data?.length ?? 0), 0),
        });
    }
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return sizes;
}

interface ResetHistory {
  events?:
    | {
        workflowExecutionStartedEventAttributes?: { originalExecutionRunId?: string | null } | null;
        workflowTaskFailedEventAttributes?: { newRunId?: string | null } | null;
      }[]
    | null;
}

/**
 * A run made by `temporal workflow reset` as its worker replays it. The replayer runs a history
 * under the run id its start event names, which a reset keeps (the old run's); a worker knows the
 * reset run's own, which the reset's failed workflow task names (`newRunId`), and the workflow
 * tells a reset run by it (src/workflows/reset.ts). Other histories are returned as they are.
 */
export function asItsRunSawIt<T extends ResetHistory>(history: T): T {
  const resetRun = (history.events ?? [])
    .flatMap((event) => event.workflowTaskFailedEventAttributes?.newRunId ?? [])
    .at(-1);
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  if (resetRun && started) started.originalExecutionRunId = resetRun;
  return history;
}
