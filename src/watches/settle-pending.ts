/**
 * Checks whose answer was RUNNING, settled once their finished job is in the job store (stored by `serve`'s
 * receiver from the job's callback, or by reconcile): what the job found is observed against the row's
 * memory, as a finished answer would have been, and what it cost is added to the cycle the row was
 * checked in. Each pending check is settled once, whichever process reads it (record-check.ts).
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { isPlainObject } from '../contract/custom-fields.js';
import { TERMINAL_STATUSES } from '../contract/enums.js';
import { parseJsonText } from '../contract/json.js';
import { personsOf, totalUsdOf } from '../launch/launch-budget.js';
import type { Database } from '../storage/database.js';
import { decodeEnvelope } from '../storage/envelope-codec.js';
import type { WatchDefinition } from './load-watches.js';
import { observeAnswer } from './observe-answer.js';
import { finishedPendingChecks, type PendingCheck, recordFinishedCheck } from './record-check.js';
import type { WatchChange } from './watch-store.js';

/** How often a cycle (or a watch between cycles) looks for finished copies of its pending checks. */
export const PENDING_CHECK_INTERVAL_MS = 2_000;
/** Finished pending checks read at once. */
const SETTLE_BATCH = 100;

/** A pending check settled now. */
export interface SettledCheck extends PendingCheck {
  /** The job's usage.total_usd, or undefined when it did not say a price. */
  readonly totalUsd: number | undefined;
  /** Units it was priced for: persons of a search page, else 1. */
  readonly units: number;
}

/** Logs each change found, one line each. */
export function logChanges(logger: Logger, watch: string, changes: readonly WatchChange[]): void {
  for (const change of changes) {
    logger.info(
      { watch, change: change.change, row_key: change.row_key, job_id: change.job_id },
      'watch change',
    );
  }
}

/** Settles every pending check of `watch` whose finished job is stored; returns those settled here. */
export async function settlePendingChecks(
  db: Kysely<Database>,
  watch: WatchDefinition,
  options: { readonly nowIso: string; readonly logger: Logger },
): Promise<SettledCheck[]> {
  const settled: SettledCheck[] = [];
  for (;;) {
    const finished = await finishedPendingChecks(db, watch.name, TERMINAL_STATUSES, SETTLE_BATCH);
    for (const pending of finished) {
      const job = parseJsonText(decodeEnvelope(pending.envelopeZ));
      const total = totalUsdOf(job);
      const totalUsd = typeof total === 'number' ? total : undefined;
      const input = isPlainObject(job) && isPlainObject(job.input) ? job.input : undefined;
      // The task echoes the request (interface, input.task objects): what it asked is what it names.
      const request = isPlainObject(input?.task) ? input.task : {};
      const outcome = await recordFinishedCheck(
        db,
        {
          watch: watch.name,
          pending,
          usdMicros: totalUsd === undefined ? 0 : Math.round(totalUsd * 1e6),
          nowIso: options.nowIso,
          plays: watch.plays,
        },
        (previous) =>
          observeAnswer({
            operation: watch.operation.name === 'search' ? 'search' : 'job-change',
            previous,
            job,
            request,
            reportBaseline: watch.reportBaseline,
          }),
      );
      if (!outcome.recorded) continue;
      logChanges(options.logger, watch.name, outcome.changes);
      const units = watch.operation.name === 'search' ? (personsOf(job) ?? 0) : 1;
      settled.push({ rowKey: pending.rowKey, jobId: pending.jobId, cycle: pending.cycle, totalUsd, units });
    }
    if (finished.length < SETTLE_BATCH) return settled;
  }
}
