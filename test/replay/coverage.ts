/**
 * What a recorded history covers, read from its events: how it ended, the transitions it took
 * (the AgentLastTransition search attribute and the model calls' summaries), and the paths that
 * leave other marks (a cancellation request, a timer that fired, continue-as-new, a run input,
 * a patch marker, a child's input).
 */
import { readFileSync } from 'node:fs';

interface Payload {
  data?: string;
}

interface Event {
  workflowExecutionStartedEventAttributes?: { input?: { payloads?: Payload[] } };
  workflowExecutionCompletedEventAttributes?: { result?: { payloads?: Payload[] } };
  workflowExecutionContinuedAsNewEventAttributes?: unknown;
  workflowExecutionCancelRequestedEventAttributes?: unknown;
  timerFiredEventAttributes?: unknown;
  markerRecordedEventAttributes?: { markerName?: string; details?: { 'patch-data'?: { payloads?: Payload[] } } };
  startChildWorkflowExecutionInitiatedEventAttributes?: { input?: { payloads?: Payload[] } };
  childWorkflowExecutionCompletedEventAttributes?: unknown;
  signalExternalWorkflowExecutionInitiatedEventAttributes?: unknown;
  upsertWorkflowSearchAttributesEventAttributes?: { searchAttributes?: { indexedFields?: Record<string, Payload> } };
  activityTaskScheduledEventAttributes?: { activityType?: { name?: string } };
  userMetadata?: { summary?: Payload };
}

export interface Coverage {
  name: string;
  input: {
    tokenBudget?: number;
    parentSession?: { toolsLeftOut?: unknown };
    fork?: { readState?: unknown };
    resume?: { session?: { workdirLease?: unknown }; transcriptChain?: { head: string | null } };
  };
  result?: { reason: string; error?: string; usage: { outputTokens: number } };
  transitions: string[];
  continuedAsNew: boolean;
  cancelRequested: boolean;
  timerFired: boolean;
  /** A sub-agent (a child workflow) ran to its end. */
  childCompleted: boolean;
  /** A signal went to another workflow (a sub-agent to its parent, or a parent's answer to a sub-agent). */
  signalledExternal: boolean;
  /** The ids of its `patched()` markers. */
  patches: string[];
  /** A sub-agent it started had tools of its type left out (what the child's input says). */
  startedCutDownChild: boolean;
}

const decode = (payload: Payload | undefined): unknown =>
  payload?.data ? JSON.parse(Buffer.from(payload.data, 'base64').toString('utf8')) : undefined;

export function coverageOf(name: string, path: string): Coverage {
  const events = (JSON.parse(readFileSync(path, 'utf8')) as { events: Event[] }).events;
  const transitions: string[] = [];
  for (const event of events) {
    const transition = decode(
      event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.AgentLastTransition,
    );
    if (typeof transition === 'string' && transition !== 'none') transitions.push(transition);
    const summary =
      event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel'
        ? decode(event.userMetadata?.summary)
        : undefined;
    const retried = typeof summary === 'string' ? summary.match(/\((\w+)\)$/)?.[1] : undefined;
    if (retried) transitions.push(retried);
  }
  return {
    name,
    input: (decode(events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]) ??
      {}) as Coverage['input'],
    result: decode(
      events.find((event) => event.workflowExecutionCompletedEventAttributes)?.workflowExecutionCompletedEventAttributes
        ?.result?.payloads?.[0],
    ) as Coverage['result'],
    transitions,
    continuedAsNew: events.some((event) => event.workflowExecutionContinuedAsNewEventAttributes),
    cancelRequested: events.some((event) => event.workflowExecutionCancelRequestedEventAttributes),
    timerFired: events.some((event) => event.timerFiredEventAttributes),
    childCompleted: events.some((event) => event.childWorkflowExecutionCompletedEventAttributes),
    signalledExternal: events.some((event) => event.signalExternalWorkflowExecutionInitiatedEventAttributes),
    patches: events.flatMap((event) => {
      const patch =
        event.markerRecordedEventAttributes?.markerName === 'core_patch'
          ? decode(event.markerRecordedEventAttributes.details?.['patch-data']?.payloads?.[0])
          : undefined;
      return patch && typeof patch === 'object' && 'id' in patch ? [String(patch.id)] : [];
    }),
    startedCutDownChild: events.some((event) => {
      const input = decode(event.startChildWorkflowExecutionInitiatedEventAttributes?.input?.payloads?.[0]) as
        Coverage['input'] | undefined;
      return input?.parentSession?.toolsLeftOut !== undefined;
    }),
  };
}
