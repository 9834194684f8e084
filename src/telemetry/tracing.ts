/**
 * OpenTelemetry tracing of a worker, on when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set: Temporal's interceptors give the workflow and
 * activity spans (`RunWorkflow:agentWorkflow`, `StartActivity:callModel`, `RunActivity:callModel`,
 * …, one trace per session, the workflow's spans exported through a sink), and our activities add
 * `model.call` and `tool.call` spans inside them (src/activities/spans.ts). Spans go out over
 * OTLP/HTTP in batches. Off: no provider, no interceptors; the workflow code's tracing
 * interceptor, always in the bundle, exports to a sink that drops everything.
 */
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks, WorkerOptions } from '@temporalio/worker';

export interface Tracing {
  /** What Worker.create needs: interceptors and the workflow spans' sink. */
  workerOptions: Pick<WorkerOptions, 'interceptors' | 'sinks'>;
  /** Sends what is still buffered. */
  shutdown(): Promise<void>;
}

export const SERVICE_NAME = 'durable-agent';

export function tracingEnabled(environment: NodeJS.ProcessEnv): boolean {
  return Boolean(environment.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || environment.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** Tracing for this process, or undefined when off. `spanProcessor`: where spans go instead of OTLP (tests). */
export function setUpTracing(environment: NodeJS.ProcessEnv, spanProcessor?: SpanProcessor): Tracing | undefined {
  if (!spanProcessor && !tracingEnabled(environment)) return undefined;
  const resource = new Resource({ 'service.name': environment.OTEL_SERVICE_NAME?.trim() || SERVICE_NAME });
  // The exporter reads OTEL_EXPORTER_OTLP_* (endpoint, headers, timeout) itself.
  const processor = spanProcessor ?? new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  // Global: our activities' spans (`trace.getTracer`) and the active span's context come from it.
  provider.register();
  return {
    workerOptions: {
      interceptors: {
        client: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
        activity: [(context) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(context), outbound: new OpenTelemetryActivityOutboundInterceptor(context) })],
      },
      sinks: { exporter: makeWorkflowExporter(processor, resource) } as InjectedSinks<never>,
    },
    shutdown: () => provider.shutdown(),
  };
}

/** With tracing off, the workflow's spans still reach the `exporter` sink: this one drops them. */
export const DROPPED_WORKFLOW_SPANS = { exporter: { export: { fn: () => undefined, callDuringReplay: false } } } as InjectedSinks<never>;
