/** A watch cycle as a span (issue 40): the watch, the cycle, and what it came to. */
import type { Telemetry } from '../telemetry/telemetry.js';
import { traceRun } from '../telemetry/trace-run.js';
import type { CycleSummary } from './run-cycle.js';

/** Runs `run` (one cycle of `watch`) in a span. */
export function traceCycle(
  telemetry: Telemetry,
  watch: string,
  cycle: number,
  run: () => Promise<CycleSummary>,
): Promise<CycleSummary> {
  return traceRun(
    telemetry,
    'hooksync.watch.cycle',
    { 'hooksync.watch': watch, 'hooksync.watch.cycle': cycle },
    run,
    (summary) => ({
      'hooksync.outcome': summary.stopped ?? (summary.finished ? 'finished' : 'unfinished'),
      'hooksync.watch.rows': summary.rows,
      'hooksync.watch.checked': summary.checked,
      'hooksync.watch.changes': summary.changes,
    }),
  );
}
