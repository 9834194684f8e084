/**
 * Where a session's turns go, read from its history: each activity type's median time from
 * scheduled to started (queued) and started to completed (running), and workflow tasks per turn.
 */
import { eventTime, type History, median, round } from './support';

interface Span {
  scheduled: number;
  started?: number;
  completed?: number;
}

/** Activity type → its spans; workflow tasks as spans too (`workflowTask`). */
function spansOf(history: History): Map<string, Span[]> {
  const spans = new Map<string, Span[]>();
  const byEventId = new Map<string, Span>();
  const open = (type: string, id: string, at: number) => {
    const span: Span = { scheduled: at };
    byEventId.set(id, span);
    spans.set(type, [...(spans.get(type) ?? []), span]);
  };
  for (const event of history.events ?? []) {
    const id = String(event.eventId);
    const at = eventTime(event);
    if (event.activityTaskScheduledEventAttributes)
      open(event.activityTaskScheduledEventAttributes.activityType?.name ?? '?', id, at);
    if (event.workflowTaskScheduledEventAttributes) open('workflowTask', id, at);
    const started = event.activityTaskStartedEventAttributes ?? event.workflowTaskStartedEventAttributes;
    if (started) byEventId.get(String(started.scheduledEventId))!.started = at;
    const completed = event.activityTaskCompletedEventAttributes ?? event.workflowTaskCompletedEventAttributes;
    if (completed) byEventId.get(String(completed.scheduledEventId))!.completed = at;
  }
  return spans;
}

/** `callModel 76 ms (queued 2), runTool 33 ms (queued 1), …; 2.5 workflow tasks a turn (queued 14 ms, 28 ms each)`. */
export function turnBreakdown(history: History, turns: number): string {
  const parts: string[] = [];
  let tasks = '';
  for (const [type, spans] of spansOf(history)) {
    const done = spans.filter((span) => span.started !== undefined && span.completed !== undefined);
    const queued = round(median(done.map((span) => span.started! - span.scheduled)));
    const running = round(median(done.map((span) => span.completed! - span.started!)));
    if (type === 'workflowTask')
      tasks = `${round(spans.length / turns, 2)} workflow tasks a turn (queued ${queued} ms, ${running} ms each)`;
    else if (done.length >= turns / 2) parts.push(`${type} ${running} ms (queued ${queued})`);
  }
  return `${parts.join(', ')}; ${tasks}`;
}
