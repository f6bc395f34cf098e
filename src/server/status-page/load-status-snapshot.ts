/**
 * Everything the status page shows, read at once. Each section is read on its own: a section that cannot
 * be read (a table a newer version adds, a database hiccup) is shown as unavailable, the others still show.
 */

import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { type DestinationState, listDestinationStates } from '../../destinations/destination-admin.js';
import { listExportCursors } from '../../export/export-cursor.js';
import { type DeliveryStats, loadDeliveryStats } from '../../receiver/load-delivery-stats.js';
import { listReconcileRuns, type ReconcileRunRecord } from '../../reconcile/reconcile-history.js';
import type { Database } from '../../storage/database.js';
import type { ExpectedJobState } from '../../storage/ledger/ledger-tables.js';
import type { ExpectedJobRow } from '../../storage/ledger/list-expected-jobs.js';
import { countExpectedJobs, listExpectedJobs } from '../../storage/ledger/list-expected-jobs.js';
import {
  loadQuarantineSummary,
  type QuarantineSummary,
} from '../../storage/quarantine/load-quarantine-summary.js';
import { type PlayRow, playsOfChanges } from '../../watches/plays/play-store.js';
import { latestChanges, latestCycles, type WatchChange, type WatchCycle } from '../../watches/watch-store.js';

/** Ledger entries listed per state. */
export const DEFAULT_LEDGER_LIST_LIMIT = 50;
/** Reconcile runs listed. */
export const DEFAULT_RUNS_LIMIT = 10;
/** Export cursors listed. */
export const DEFAULT_CURSORS_LIMIT = 100;

/** A section's data, or the fact that it could not be read. */
export type Section<T> = { readonly ok: true; readonly value: T } | { readonly ok: false };

/** The ledger: counts by state and the entries that need a look. */
export interface LedgerSummary {
  readonly counts: Readonly<Record<ExpectedJobState, number>>;
  /** Oldest first. */
  readonly pending: readonly ExpectedJobRow[];
  /** Oldest first. */
  readonly notFound: readonly ExpectedJobRow[];
}

/** One export cursor. */
export interface ExportCursorEntry {
  readonly template: string;
  readonly cursor: string;
  readonly rows: number;
  readonly updatedAt: string;
}

/** What one page view shows. */
export interface StatusSnapshot {
  /** When it was read, ISO 8601 UTC. */
  readonly generatedAt: string;
  readonly deliveries: Section<DeliveryStats>;
  readonly quarantine: Section<QuarantineSummary>;
  readonly ledger: Section<LedgerSummary>;
  readonly runs: Section<readonly ReconcileRunRecord[]>;
  readonly cursors: Section<readonly ExportCursorEntry[]>;
  readonly destinations: Section<readonly DestinationState[]>;
  readonly watches: Section<WatchesSummary>;
}

/** The watches: each one's latest cycle, and the latest changes. */
export interface WatchesSummary {
  readonly cycles: readonly WatchCycle[];
  readonly changes: readonly WatchChange[];
  /** What each of those changes started (successor searches, CRM tasks), by change id. */
  readonly plays?: ReadonlyMap<string, readonly PlayRow[]> | undefined;
}

/** Changes shown. */
export const DEFAULT_CHANGES_LIMIT = 20;

/** Collaborators of {@link loadStatusSnapshot}. */
export interface LoadStatusSnapshotDeps {
  db: Kysely<Database>;
  now: Date;
  /** Where unreadable sections are reported. */
  logger?: Logger;
  /** Read the start of each quarantined body (default false: they may hold personal data). */
  bodies?: boolean;
}

async function section<T>(
  name: string,
  logger: Logger | undefined,
  read: () => Promise<T>,
): Promise<Section<T>> {
  try {
    return { ok: true, value: await read() };
  } catch (error) {
    logger?.error({ err: error, section: name }, 'status page section could not be read');
    return { ok: false };
  }
}

/** Reads every section. Never throws for a database failure. */
export async function loadStatusSnapshot(deps: LoadStatusSnapshotDeps): Promise<StatusSnapshot> {
  const { db, logger } = deps;
  const nowMs = deps.now.getTime();
  if (!Number.isFinite(nowMs)) throw new TypeError('now must be a valid Date');
  const [deliveries, quarantine, ledger, runs, cursors, destinations, watches] = await Promise.all([
    section('deliveries', logger, () => loadDeliveryStats(db, nowMs)),
    section('quarantine', logger, () => loadQuarantineSummary(db, { bodies: deps.bodies === true })),
    section('ledger', logger, async (): Promise<LedgerSummary> => {
      const [counts, pending, notFound] = await Promise.all([
        countExpectedJobs(db),
        listExpectedJobs(db, { state: 'pending', limit: DEFAULT_LEDGER_LIST_LIMIT }),
        listExpectedJobs(db, { state: 'not_found', limit: DEFAULT_LEDGER_LIST_LIMIT }),
      ]);
      return { counts, pending, notFound };
    }),
    section('runs', logger, () => listReconcileRuns(db, DEFAULT_RUNS_LIMIT)),
    section('cursors', logger, async () =>
      (await listExportCursors(db, DEFAULT_CURSORS_LIMIT)).map(({ key, ...cursor }) => ({
        template: key,
        ...cursor,
      })),
    ),
    section('destinations', logger, () => listDestinationStates(db, nowMs)),
    section('watches', logger, async (): Promise<WatchesSummary> => {
      const changes = await latestChanges(db, DEFAULT_CHANGES_LIMIT);
      return {
        cycles: [...(await latestCycles(db)).values()].sort((a, b) => a.watch.localeCompare(b.watch)),
        changes,
        plays: await playsOfChanges(
          db,
          changes.map((c) => c.id),
        ),
      };
    }),
  ]);
  return {
    generatedAt: new Date(nowMs).toISOString(),
    deliveries,
    quarantine,
    ledger,
    runs,
    watches,
    cursors,
    destinations,
  };
}
