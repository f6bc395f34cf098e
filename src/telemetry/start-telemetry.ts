/**
 * Turns tracing on when the OTEL_* variables ask for it (issue 40): the SDK is imported here, lazily, and
 * only then; without an OTLP endpoint this resolves undefined having loaded nothing.
 */
import { loadTelemetryConfig } from '../config/load-telemetry-config.js';
import type { Telemetry } from './telemetry.js';

/** Knobs of {@link startTelemetry}. */
export interface StartTelemetryOptions {
  /** service.version on every span (default: none given, the SDK's unknown). */
  readonly version?: string;
}

/** The telemetry the environment asks for, or undefined (OTel off: nothing loaded, nothing exported). */
export async function startTelemetry(
  env: Readonly<Record<string, string | undefined>>,
  options: StartTelemetryOptions = {},
): Promise<Telemetry | undefined> {
  const config = loadTelemetryConfig(env);
  if (config === undefined) return undefined;
  const { createOtelTelemetry } = await import('./otel-telemetry.js');
  return createOtelTelemetry(config, options.version ?? 'unknown');
}
