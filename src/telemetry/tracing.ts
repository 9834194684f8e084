/**
 * OpenTelemetry tracing of a worker, on when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set. One trace per session (its id from the workflow
 * id), one `RunWorkflow:agentWorkflow` span per run (its id from the run id, made when the run
 * ends, from the workflow's `tracing.runEnded` sink), a `RunActivity:<type>` span per activity
 * attempt under its run's span, and our `model.call` and `tool.call` spans inside those
 * (src/activities/spans.ts). Spans go out over OTLP/HTTP in batches.
 *
 * No workflow interceptor: the one of @temporalio/interceptors-opentelemetry (1.24.0) made
 * sessions with updates fail to replay (an approval's update and its timeout timer: "Update
 * machine does not handle this event: TimerCanceled"). Ids derived from the workflow give the
 * same nesting with nothing in the sandbox but a sink, which makes no command.
 */
import { createHash } from 'node:crypto';
import { context, type Span, SpanKind, TraceFlags, trace, type Tracer } from '@opentelemetry/api';
import { Resource } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  type IdGenerator,
  RandomIdGenerator,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { Context as ActivityContext } from '@temporalio/activity';
import type {
  ActivityExecuteInput,
  ActivityInboundCallsInterceptor,
  InjectedSinks,
  Next,
  WorkerOptions,
} from '@temporalio/worker';
import type { AgentSinks, RunEnded } from '../shared/sinks';
import { runInSpan } from './spans';
import { tracingEnabled } from './tracing-setting';

export interface Tracing {
  /** What Worker.create needs: the activity interceptor and the workflow's sink. */
  workerOptions: Required<Pick<WorkerOptions, 'interceptors' | 'sinks'>>;
  /** Sends what is still buffered. */
  shutdown(): Promise<void>;
}

export const SERVICE_NAME = 'durable-agent';
const TRACER = 'durable-agent';

// Where the worker asks without loading this module; exported here too, as before.
export { DROPPED_WORKFLOW_SPANS, tracingEnabled } from './tracing-setting';

const hex = (text: string, length: number) => createHash('sha256').update(text).digest('hex').slice(0, length);
/** A session's trace: every run and activity of the workflow id, whichever worker made them. */
export const sessionTraceId = (workflowId: string) => hex(`trace:${workflowId}`, 32);
/** A run's span, known to its activities before the run has ended. */
export const runSpanId = (runId: string) => hex(`run:${runId}`, 16);

/** Random ids, except for the one span whose ids are chosen (a run's, made when it ends). */
class ChosenIds implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  chosen: { traceId: string; spanId: string } | undefined;
  generateTraceId = () => this.chosen?.traceId ?? this.random.generateTraceId();
  generateSpanId = () => this.chosen?.spanId ?? this.random.generateSpanId();
}

/** Tracing for this process, or undefined when off. `spanProcessor`: where spans go instead of OTLP (tests). */
export function setUpTracing(environment: NodeJS.ProcessEnv, spanProcessor?: SpanProcessor): Tracing | undefined {
  if (!spanProcessor && !tracingEnabled(environment)) return undefined;
  const resource = new Resource({ 'service.name': environment.OTEL_SERVICE_NAME?.trim() || SERVICE_NAME });
  const ids = new ChosenIds();
  // The exporter reads OTEL_EXPORTER_OTLP_* (endpoint, headers, timeout) itself.
  const processor = spanProcessor ?? new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, idGenerator: ids, spanProcessors: [processor] });
  // Global: our activities' spans (`trace.getTracer`) and the active span's context come from it.
  provider.register();
  const tracer = provider.getTracer(TRACER);

  return {
    workerOptions: {
      interceptors: { activity: [(activity) => ({ inbound: new ActivitySpans(tracer, activity) })] },
      sinks: {
        tracing: { runEnded: { fn: (_info, run) => recordRun(tracer, ids, run), callDuringReplay: false } },
      } satisfies InjectedSinks<AgentSinks>,
    },
    shutdown: () => provider.shutdown(),
  };
}

/** A run's span, made when it ends, with the ids its activities' spans already name as their parent. */
function recordRun(tracer: Tracer, ids: ChosenIds, run: RunEnded): void {
  ids.chosen = { traceId: sessionTraceId(run.workflowId), spanId: runSpanId(run.runId) };
  let span: Span;
  try {
    span = tracer.startSpan(`RunWorkflow:${run.workflowType}`, {
      root: true,
      kind: SpanKind.SERVER,
      startTime: run.startTime,
      attributes: runAttributes(run),
    });
  } finally {
    ids.chosen = undefined;
  }
  span.end(run.endTime);
}

/** An activity attempt's span, under its run's (whose ids come from the workflow's). */
class ActivitySpans implements ActivityInboundCallsInterceptor {
  constructor(
    private readonly tracer: Tracer,
    private readonly activity: ActivityContext,
  ) {}

  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const { info } = this.activity;
    const run = info.workflowExecution;
    const parent = run
      ? trace.setSpanContext(context.active(), {
          traceId: sessionTraceId(run.workflowId),
          spanId: runSpanId(run.runId),
          traceFlags: TraceFlags.SAMPLED,
          isRemote: true,
        })
      : context.active();
    const attributes = {
      temporalWorkflowId: run?.workflowId ?? '',
      temporalRunId: run?.runId ?? '',
      temporalActivityId: info.activityId,
      'durable_agent.attempt': info.attempt,
    };
    return runInSpan(
      this.tracer,
      `RunActivity:${info.activityType}`,
      { kind: SpanKind.INTERNAL, attributes },
      parent,
      () => next(input),
    );
  }
}

function runAttributes(run: RunEnded) {
  return {
    temporalWorkflowId: run.workflowId,
    temporalRunId: run.runId,
    'durable_agent.outcome': run.outcome,
    'durable_agent.turns': run.turns,
    ...(run.reason ? { 'durable_agent.reason': run.reason } : {}),
  };
}
