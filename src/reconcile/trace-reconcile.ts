/** What a reconcile run's span says of it (issue 40): its status and counts, never a job's content. */
import type { SpanAttributes } from '../telemetry/telemetry.js';
import type { ReconcileReport } from './reconcile-report.js';

/** The attributes of a finished run's span. */
export function reconcileAttributes(report: ReconcileReport): SpanAttributes {
  return {
    'hooksync.outcome': report.status === 'failed' ? 'failed' : report.status,
    'hooksync.reconcile.checked': report.checked,
    'hooksync.reconcile.fetched': report.fetched,
    'hooksync.reconcile.recovered': report.recovered,
    'hooksync.reconcile.still_pending': report.still_pending,
  };
}
