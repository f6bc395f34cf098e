/** The OTEL_* variables (issue 40): off unless an endpoint is set; each bad value one error naming it. */
import { describe, expect, it } from 'vitest';
import { loadTelemetryConfig, parseResourceAttributes } from '../../../src/config/load-telemetry-config.js';
import { ConfigError } from '../../../src/errors.js';

describe('loadTelemetryConfig', () => {
  it('is off without an endpoint, or when the SDK is disabled', () => {
    expect(loadTelemetryConfig({})).toBeUndefined();
    expect(loadTelemetryConfig({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBeUndefined();
    expect(
      loadTelemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }),
    ).toBeUndefined();
  });

  it('follows the specification for URLs, names and defaults', () => {
    expect(loadTelemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toEqual({
      tracesUrl: 'http://c:4318/v1/traces',
      tracesProtocol: 'http/json',
      serviceName: 'hooksync',
      resourceAttributes: {},
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
      maxQueueSize: 2048,
    });
    const config = loadTelemetryConfig({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://c.example/custom/traces',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attrs,team=rev%20ops',
      OTEL_TRACES_SAMPLER: 'traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_METRICS_EXPORTER: 'prometheus,otlp',
    })!;
    expect(config).toMatchObject({
      tracesUrl: 'https://c.example/custom/traces',
      tracesProtocol: 'http/protobuf',
      serviceName: 'from-attrs',
      resourceAttributes: { team: 'rev ops' },
      samplerRatio: 0.25,
      metrics: { url: 'https://c.example/custom/traces', protocol: 'http/protobuf', intervalMs: 60_000 },
    });
    expect(
      loadTelemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/', OTEL_SERVICE_NAME: 'mine' }),
    ).toMatchObject({ tracesUrl: 'http://c:4318/v1/traces', serviceName: 'mine' });
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'c:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://c' }, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL'],
    [{ OTEL_TRACES_SAMPLER: 'sometimes' }, 'OTEL_TRACES_SAMPLER'],
    [{ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' }, 'OTEL_TRACES_SAMPLER_ARG'],
    [{ OTEL_BSP_MAX_QUEUE_SIZE: '0' }, 'OTEL_BSP_MAX_QUEUE_SIZE'],
    [{ OTEL_RESOURCE_ATTRIBUTES: 'novalue' }, 'OTEL_RESOURCE_ATTRIBUTES'],
    [{ OTEL_METRICS_EXPORTER: 'otlp', OTEL_METRIC_EXPORT_INTERVAL: 'soon' }, 'OTEL_METRIC_EXPORT_INTERVAL'],
  ])('refuses %o naming %s', (env, name) => {
    const call = () => loadTelemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', ...env });
    expect(call).toThrow(ConfigError);
    expect(call).toThrow(name);
  });

  it('decodes resource attributes', () => {
    expect(parseResourceAttributes('a=1, b = x%2Cy ,')).toEqual({ a: '1', b: 'x,y' });
    expect(parseResourceAttributes(undefined)).toEqual({});
  });
});
