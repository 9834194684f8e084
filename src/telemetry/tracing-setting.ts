/**
 * Whether tracing is on, and the sink a worker without it gives the workflow: apart from
 * tracing.ts, so a worker with tracing off starts without loading the OpenTelemetry SDK and
 * its exporter (a noticeable part of a restarted worker's time to its first poll).
 */
import type { InjectedSinks } from '@temporalio/worker';
import type { AgentSinks } from '../shared/sinks';

export function tracingEnabled(environment: NodeJS.ProcessEnv): boolean {
  return Boolean(
    environment.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || environment.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim(),
  );
}

/** With tracing off, the workflow's sink is still called: this one drops what it is told. */
export const DROPPED_WORKFLOW_SPANS: InjectedSinks<AgentSinks> = {
  tracing: { runEnded: { fn: () => undefined, callDuringReplay: false } },
};
