/**
 * OpenTelemetry's settings (issue 40), read from the standard OTEL_* variables: tracing is on only when
 * OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set (and OTEL_SDK_DISABLED is not
 * true); otherwise this returns undefined and nothing of the SDK is loaded (docs/operations.md).
 */
import { ConfigError } from '../errors.js';

/** The service name spans carry when OTEL_SERVICE_NAME is not set. */
export const DEFAULT_OTEL_SERVICE_NAME = 'hooksync';
/** Spans held for export at most (OTEL_BSP_MAX_QUEUE_SIZE): past it, new ones are dropped and counted. */
export const DEFAULT_SPAN_QUEUE_SIZE = 2048;
/** How often metrics are exported with OTEL_METRICS_EXPORTER=otlp (OTEL_METRIC_EXPORT_INTERVAL), ms. */
export const DEFAULT_METRIC_EXPORT_INTERVAL_MS = 60_000;

/** How OTLP is sent over HTTP. */
export type OtlpProtocol = 'http/json' | 'http/protobuf';

/** The samplers of the OpenTelemetry specification (OTEL_TRACES_SAMPLER). */
export const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type SamplerName = (typeof SAMPLERS)[number];

/** Where and how traces (and, when asked, metrics) are exported. */
export interface TelemetryConfig {
  /** Full URL spans are POSTed to. */
  readonly tracesUrl: string;
  readonly tracesProtocol: OtlpProtocol;
  readonly serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES, decoded. */
  readonly resourceAttributes: Readonly<Record<string, string>>;
  readonly sampler: SamplerName;
  /** traceidratio's ratio, 0..1 (default 1). */
  readonly samplerRatio: number;
  /** Default {@link DEFAULT_SPAN_QUEUE_SIZE}. */
  readonly maxQueueSize: number;
  /** Present when OTEL_METRICS_EXPORTER includes otlp. */
  readonly metrics?: {
    readonly url: string;
    readonly protocol: OtlpProtocol;
    readonly intervalMs: number;
  };
}

type Env = Readonly<Record<string, string | undefined>>;

const set = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === '' ? undefined : value.trim();

/** The settings, or undefined when tracing is off (no endpoint, or OTEL_SDK_DISABLED=true). */
export function loadTelemetryConfig(env: Env): TelemetryConfig | undefined {
  if (set(env.OTEL_SDK_DISABLED)?.toLowerCase() === 'true') return undefined;
  const base = set(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const traces = set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  if (base === undefined && traces === undefined) return undefined;
  const tracesUrl =
    traces !== undefined
      ? checkedUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', traces)
      : signalUrl('OTEL_EXPORTER_OTLP_ENDPOINT', base!, 'traces');
  const sampler = (set(env.OTEL_TRACES_SAMPLER) ?? 'parentbased_always_on').toLowerCase();
  if (!(SAMPLERS as readonly string[]).includes(sampler)) {
    throw new ConfigError(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')}`);
  }
  const metricsExporters = (set(env.OTEL_METRICS_EXPORTER) ?? 'none').toLowerCase().split(',');
  const metricsEndpoint = set(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT);
  const resourceAttributes = parseResourceAttributes(env.OTEL_RESOURCE_ATTRIBUTES);
  return Object.freeze({
    tracesUrl,
    tracesProtocol: protocolOf(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'),
    // OTEL_SERVICE_NAME wins over a service.name in OTEL_RESOURCE_ATTRIBUTES (the specification's rule).
    serviceName:
      set(env.OTEL_SERVICE_NAME) ?? resourceAttributes['service.name'] ?? DEFAULT_OTEL_SERVICE_NAME,
    resourceAttributes: Object.freeze(resourceAttributes),
    sampler: sampler as SamplerName,
    samplerRatio: samplerRatio(sampler, set(env.OTEL_TRACES_SAMPLER_ARG)),
    maxQueueSize: positiveInteger(env, 'OTEL_BSP_MAX_QUEUE_SIZE', DEFAULT_SPAN_QUEUE_SIZE),
    ...(metricsExporters.map((name) => name.trim()).includes('otlp')
      ? {
          metrics: Object.freeze({
            url:
              metricsEndpoint !== undefined
                ? checkedUrl('OTEL_EXPORTER_OTLP_METRICS_ENDPOINT', metricsEndpoint)
                : base !== undefined
                  ? signalUrl('OTEL_EXPORTER_OTLP_ENDPOINT', base, 'metrics')
                  : siblingUrl(tracesUrl),
            protocol: protocolOf(env, 'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL'),
            intervalMs: positiveInteger(
              env,
              'OTEL_METRIC_EXPORT_INTERVAL',
              DEFAULT_METRIC_EXPORT_INTERVAL_MS,
            ),
          }),
        }
      : {}),
  });
}

/** OTEL_RESOURCE_ATTRIBUTES: `key=value` pairs split by commas, values percent-decoded (W3C Baggage style). */
export function parseResourceAttributes(text: string | undefined): Record<string, string> {
  const attributes: Record<string, string> = {};
  if (set(text) === undefined) return attributes;
  for (const pair of text!.split(',')) {
    if (pair.trim() === '') continue;
    const at = pair.indexOf('=');
    const key = at === -1 ? '' : pair.slice(0, at).trim();
    if (key === '') throw new ConfigError('OTEL_RESOURCE_ATTRIBUTES: each entry must be key=value');
    try {
      attributes[key] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      throw new ConfigError(`OTEL_RESOURCE_ATTRIBUTES: the value of ${key} is not percent-encoded properly`);
    }
  }
  return attributes;
}

function protocolOf(env: Env, signalVariable: string): OtlpProtocol {
  const name = set(env[signalVariable]) !== undefined ? signalVariable : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  // JSON unless asked otherwise: the SDK's OTLP/HTTP exporter sends JSON, and every collector takes it.
  const value = set(env[name]) ?? 'http/json';
  if (value === 'http/json' || value === 'http/protobuf') return value;
  throw new ConfigError(`${name} must be http/json or http/protobuf (grpc is not supported)`);
}

function checkedUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be an http:// or https:// URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an http:// or https:// URL`);
  }
  return url.href;
}

/** The specification's rule: the base endpoint plus `v1/<signal>`. */
function signalUrl(name: string, base: string, signal: 'traces' | 'metrics'): string {
  const href = checkedUrl(name, base);
  return `${href.endsWith('/') ? href : `${href}/`}v1/${signal}`;
}

/** With only a traces URL given, metrics go beside it (…/v1/traces → …/v1/metrics). */
function siblingUrl(tracesUrl: string): string {
  return tracesUrl.endsWith('/v1/traces') ? `${tracesUrl.slice(0, -'traces'.length)}metrics` : tracesUrl;
}

function samplerRatio(sampler: string, arg: string | undefined): number {
  if (!sampler.endsWith('traceidratio') || arg === undefined) return 1;
  const ratio = Number(arg);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) {
    throw new ConfigError('OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1');
  }
  return ratio;
}

function positiveInteger(env: Env, name: string, fallback: number): number {
  const value = set(env[name]);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new ConfigError(`${name} must be a positive integer`);
  return Number(value);
}
