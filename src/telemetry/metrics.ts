/**
 * Temporal's worker metrics (task slots, poll and schedule-to-start latencies, workflow and
 * activity outcomes: the SDK's own) on a Prometheus endpoint, when `AGENT_METRICS_ADDRESS`
 * (`host:port`) is set: `http://<host:port>/metrics`.
 */
import type { RuntimeOptions } from '@temporalio/worker';

export function metricsAddress(environment: NodeJS.ProcessEnv): string | undefined {
  const address = environment.AGENT_METRICS_ADDRESS?.trim();
  if (!address) return undefined;
  if (!/^[^\s:]+:\d{1,5}$/.test(address) && !/^\[[0-9a-fA-F:]+\]:\d{1,5}$/.test(address)) {
    throw new Error(`AGENT_METRICS_ADDRESS=${address}: use host:port, e.g. 0.0.0.0:9464`);
  }
  return address;
}

/** The Runtime's telemetry options for these settings (none when metrics are off). */
export function runtimeTelemetry(environment: NodeJS.ProcessEnv): Pick<RuntimeOptions, 'telemetryOptions'> {
  const bindAddress = metricsAddress(environment);
  return bindAddress ? { telemetryOptions: { metrics: { prometheus: { bindAddress } } } } : {};
}
