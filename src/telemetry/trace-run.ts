/**
 * A long run (a watch cycle, a reconcile run, a CLI command) as one span (issue 40): its outbound calls are
 * client spans under it; what it came to is set as attributes when it ends.
 */
import type { SpanAttributes, Telemetry } from './telemetry.js';

/**
 * Runs `run` in a span named `name`; `summarize` turns its result into attributes (a `failed` outcome, or
 * a throw, marks the span failed).
 */
export function traceRun<T>(
  telemetry: Telemetry,
  name: string,
  attributes: SpanAttributes,
  run: () => Promise<T>,
  summarize: (result: T) => SpanAttributes,
): Promise<T> {
  return telemetry.inSpan(name, { attributes }, async (span) => {
    const result = await run();
    const summary = summarize(result);
    span.set(summary);
    if (summary['hooksync.outcome'] === 'failed') span.fail('failed');
    return result;
  });
}
