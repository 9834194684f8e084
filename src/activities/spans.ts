/**
 * Our spans inside Temporal's activity spans (src/telemetry/tracing.ts): `model.call` and
 * `tool.call`. Without tracing set up, the global tracer is OpenTelemetry's no-op one, so these
 * cost nothing. Attribute names follow OpenTelemetry's GenAI conventions where there is one
 * (`gen_ai.*`); the rest are ours (`durable_agent.*`), listed in the README.
 */
import { type Attributes, type Span, SpanStatusCode, trace } from '@opentelemetry/api';

const TRACER = 'durable-agent';

export async function inSpan<T>(name: string, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T> {
  return trace.getTracer(TRACER).startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}
