/**
 * Tracing for a CLI command (issue 40): on only when OTEL_EXPORTER_OTLP_ENDPOINT (or …_TRACES_ENDPOINT) is
 * set; the SDK is loaded only then. `traceCommand` runs a whole command as one span and flushes its spans
 * before the command returns.
 */
import type { Telemetry } from '../telemetry/telemetry.js';
import { VERSION } from './version.js';

/** The line `--help` shows under the commands that trace. */
export const OTEL_HELP =
  'OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) turns on OpenTelemetry traces over\n' +
  'OTLP/HTTP (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER; docs/operations.md).';

/** The telemetry the environment asks for, or undefined (the SDK not loaded). */
export async function startCliTelemetry(
  env: Readonly<Record<string, string | undefined>>,
): Promise<Telemetry | undefined> {
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT === undefined && env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT === undefined) {
    return undefined;
  }
  const { startTelemetry } = await import('../telemetry/start-telemetry.js');
  return startTelemetry(env, { version: VERSION });
}

/**
 * Runs `command` (named `name`) with the telemetry the environment asks for, as one span when it is on;
 * the spans are flushed before this returns.
 */
export async function traceCommand<T>(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  command: (telemetry: Telemetry | undefined) => Promise<T>,
): Promise<T> {
  const telemetry = await startCliTelemetry(env);
  if (telemetry === undefined) return command(undefined);
  try {
    return await telemetry.inSpan(`hooksync ${name}`, {}, () => command(telemetry));
  } finally {
    await telemetry.shutdown();
  }
}
