import { metricsAddress, runtimeTelemetry } from '../../../src/telemetry/metrics';
import { tracingEnabled } from '../../../src/telemetry/tracing';

describe('metrics and tracing switches', () => {
  test('metrics are off without AGENT_METRICS_ADDRESS, and on a Prometheus endpoint with it', () => {
    expect(runtimeTelemetry({})).toEqual({});
    expect(runtimeTelemetry({ AGENT_METRICS_ADDRESS: '0.0.0.0:9464' })).toEqual({
      telemetryOptions: { metrics: { prometheus: { bindAddress: '0.0.0.0:9464' } } },
    });
    expect(metricsAddress({ AGENT_METRICS_ADDRESS: '[::1]:9464' })).toBe('[::1]:9464');
    expect(() => metricsAddress({ AGENT_METRICS_ADDRESS: 'http://host:9464/metrics' })).toThrow(
      'AGENT_METRICS_ADDRESS=http://host:9464/metrics: use host:port',
    );
  });

  test('tracing is on with an OTLP endpoint only', () => {
    expect(tracingEnabled({})).toBe(false);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
  });
});
