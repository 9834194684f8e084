/**
 * Our spans inside Temporal's activity spans (src/telemetry/tracing.ts): `model.call` and
 * `tool.call`. Without tracing set up, the global tracer is OpenTelemetry's no-op one, so these
 * cost nothing. Attribute names follow OpenTelemetry's GenAI conventions where there is one
 * (`gen_ai.*`); the rest are ours (`durable_agent.*`), listed in docs/production.md.
 */
import {
  type Attributes,
  type Context,
  type Span,
  type SpanOptions,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';

const TRACER = 'durable-agent';

export async function inSpan<T>(name: string, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T> {
  return runInSpan(trace.getTracer(TRACER), name, { attributes }, undefined, work);
}

/** `work` in an active span that records its exception and error status, and always ends. */
export async function runInSpan<T>(
  tracer: Tracer,
  name: string,
  options: SpanOptions,
  parent: Context | undefined,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const body = async (span: Span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  };
  return parent ? tracer.startActiveSpan(name, options, parent, body) : tracer.startActiveSpan(name, options, body);
}
