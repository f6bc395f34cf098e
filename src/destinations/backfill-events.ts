/**
 * `destinations backfill`: queues, for a destination configured after they arrived, the stored jobs (and
 * watch changes) of a window, each at its current revision, exactly once per item and destination. The
 * once is the database's: each queued item first takes its row in destination_backfills (primary key
 * destination, item), so a second backfill, or the same one run by two replicas at the same moment, meets
 * the key and queues nothing; items that already have an event for the destination (routed when they
 * were stored, or replayed) are left to `replay`. Pages of {@link DEFAULT_BACKFILL_PAGE} items, one
 * transaction each, so a long run reports progress and an interrupted one resumes where it stopped.
 */
import { type AliasedExpression, type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import { JOB_KINDS, type JobKind } from '../contract/enums.js';
import type { Database } from '../storage/database.js';
import { WATCH_CHANGE_KIND } from '../storage/job-store/record-outbox-events.js';

/** Items per page (and per transaction). */
export const DEFAULT_BACKFILL_PAGE = 500;

/** What `backfillEvents` is asked. */
export interface BackfillOptions {
  readonly destination: string;
  /** Items stored (jobs: received_at; changes: detected_at) at or after this instant, ISO 8601 UTC. */
  readonly sinceIso: string;
  /** Only this kind: a job kind, or `watch_change`; default every kind the destination takes. */
  readonly kind?: string | undefined;
  /** Count only; queue nothing. */
  readonly dryRun?: boolean | undefined;
  readonly nowIso: string;
  /** Items per page; default {@link DEFAULT_BACKFILL_PAGE}. */
  readonly pageSize?: number | undefined;
  /** Called after each page with the totals so far. */
  readonly onProgress?: ((report: BackfillReport) => void) | undefined;
}

/** Counts of one item type (jobs or changes). */
export interface BackfillCounts {
  /** Stored in the window, of a kind the destination takes. */
  considered: number;
  /** Queued by this run (with a dry run: that it would queue). */
  queued: number;
}

/** What a backfill came to. */
export interface BackfillReport {
  readonly destination: string;
  readonly dryRun: boolean;
  readonly jobs: BackfillCounts;
  readonly changes: BackfillCounts;
}

/** The kinds `destination` takes (destination_kinds): `*` for every job kind, `watch_change` for changes. */
export async function destinationKinds(db: Kysely<Database>, destination: string): Promise<string[]> {
  const rows = await db
    .selectFrom('destination_kinds')
    .select('kind')
    .where('destination', '=', destination)
    .execute();
  return rows.map((row) => row.kind).sort();
}

/**
 * Queues (or with `dryRun` counts) the items of the window that `destination` has neither an event nor a
 * backfill row for. Throws TypeError when the destination takes no events, or not `kind`.
 */
export async function backfillEvents(
  db: Kysely<Database>,
  options: BackfillOptions,
): Promise<BackfillReport> {
  if (
    options.kind !== undefined &&
    options.kind !== WATCH_CHANGE_KIND &&
    !(JOB_KINDS as readonly string[]).includes(options.kind)
  )
    throw new TypeError(
      `--kind must be one of ${[...JOB_KINDS, WATCH_CHANGE_KIND].join(', ')} (got "${options.kind}")`,
    );
  const taken = await destinationKinds(db, options.destination);
  if (taken.length === 0)
    throw new TypeError(`${options.destination} takes no events (it is not event-driven)`);
  const wantsChanges =
    options.kind === undefined ? taken.includes(WATCH_CHANGE_KIND) : options.kind === WATCH_CHANGE_KIND;
  let jobKinds: string[] | '*' | undefined;
  if (options.kind === undefined)
    jobKinds = taken.includes('*') ? '*' : taken.filter((k) => k !== WATCH_CHANGE_KIND);
  else if (options.kind !== WATCH_CHANGE_KIND) {
    if (!taken.includes('*') && !taken.includes(options.kind))
      throw new TypeError(
        `--kind: ${options.destination} does not take ${options.kind} (it takes ${taken.join(', ')})`,
      );
    jobKinds = [options.kind];
  } else if (!taken.includes(WATCH_CHANGE_KIND)) {
    throw new TypeError(
      `--kind: ${options.destination} does not take ${WATCH_CHANGE_KIND} (it takes ${taken.join(', ')})`,
    );
  }
  const report: BackfillReport = {
    destination: options.destination,
    dryRun: options.dryRun === true,
    jobs: { considered: 0, queued: 0 },
    changes: { considered: 0, queued: 0 },
  };
  const pageSize = options.pageSize ?? DEFAULT_BACKFILL_PAGE;
  if (jobKinds !== undefined && (jobKinds === '*' || jobKinds.length > 0)) {
    let after: { receivedAt: string; jobId: string } | undefined;
    for (;;) {
      const page = await jobPage(db, options.sinceIso, jobKinds, after, pageSize);
      if (page.length === 0) break;
      const ids = page.map((row) => row.job_id);
      report.jobs.considered += ids.length;
      report.jobs.queued += report.dryRun
        ? await countUnqueued(db, options.destination, JOB_ITEMS, ids)
        : await queueItems(db, options.destination, JOB_ITEMS, ids, options.nowIso);
      const last = page[page.length - 1]!;
      after = { receivedAt: last.received_at, jobId: last.job_id };
      options.onProgress?.(report);
      if (page.length < pageSize) break;
    }
  }
  if (wantsChanges) {
    let afterId = 0;
    for (;;) {
      const rows = await db
        .selectFrom('watch_changes')
        .select('id')
        .where('detected_at', '>=', options.sinceIso)
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(pageSize)
        .execute();
      if (rows.length === 0) break;
      const ids = rows.map((row) => Number(row.id));
      report.changes.considered += ids.length;
      report.changes.queued += report.dryRun
        ? await countUnqueued(db, options.destination, CHANGE_ITEMS, ids)
        : await queueItems(db, options.destination, CHANGE_ITEMS, ids, options.nowIso);
      afterId = ids[ids.length - 1]!;
      options.onProgress?.(report);
      if (rows.length < pageSize) break;
    }
  }
  return report;
}

/** The next page of the window's jobs of `kinds`, in (received_at, job_id) order after `after`. */
function jobPage(
  db: Kysely<Database>,
  sinceIso: string,
  kinds: readonly string[] | '*',
  after: { receivedAt: string; jobId: string } | undefined,
  limit: number,
) {
  let query = db
    .selectFrom('jobs')
    .select(['job_id', 'received_at'])
    .where('received_at', '>=', sinceIso)
    .orderBy('received_at')
    .orderBy('job_id')
    .limit(limit);
  if (kinds !== '*') query = query.where('kind', 'in', kinds as JobKind[]);
  if (after !== undefined) {
    const { receivedAt, jobId } = after;
    query = query.where((eb) =>
      eb.or([
        eb('received_at', '>', receivedAt),
        eb.and([eb('received_at', '=', receivedAt), eb('job_id', '>', jobId)]),
      ]),
    );
  }
  return query.execute();
}

/** One item of a backfill: its key in destination_backfills, its job, and the revision and change its event carries. */
interface BackfillItem {
  readonly item: string;
  readonly job_id: string;
  readonly revision: number;
  readonly change_id: number | string | null;
}

/** A type of item (jobs, watch changes): its rows as items, and which outbox event is an item's. */
interface ItemType<Id> {
  /** The items among `ids`, as the derived table `i`. */
  items(db: Kysely<Database>, ids: readonly Id[]): AliasedExpression<BackfillItem, 'i'>;
  /** Whether the outbox event `e` is the event of item `i`. */
  readonly eventOf: RawBuilder<SqlBool>;
}

/** Jobs: the item is the job_id; the event, the job's own (no change), at its current revision. */
const JOB_ITEMS: ItemType<string> = {
  items: (db, ids) =>
    db
      .selectFrom('jobs')
      .where('jobs.job_id', 'in', [...ids])
      .select([
        'jobs.job_id as item',
        'jobs.job_id',
        'jobs.revision',
        sql<null>`cast(null as bigint)`.as('change_id'),
      ])
      .as('i'),
  eventOf: sql<SqlBool>`${sql.ref('e.job_id')} = ${sql.ref('i.job_id')} and ${sql.ref('e.change_id')} is null`,
};

/** Watch changes: the item is `change:<id>` (a constant prefix, written into the SQL); events at revision 0. */
const CHANGE_ITEMS: ItemType<number> = {
  items: (db, ids) =>
    db
      .selectFrom('watch_changes as wc')
      .where('wc.id', 'in', [...ids])
      .select([
        sql<string>`'change:' || cast(${sql.ref('wc.id')} as text)`.as('item'),
        'wc.job_id',
        sql<number>`0`.as('revision'),
        'wc.id as change_id',
      ])
      .as('i'),
  eventOf: sql<SqlBool>`${sql.ref('e.change_id')} = ${sql.ref('i.change_id')}`,
};

/** Of the items `ids` of `type`, those with neither an event for `destination` nor a backfill row. */
function unqueued<Id>(db: Kysely<Database>, destination: string, type: ItemType<Id>, ids: readonly Id[]) {
  return db
    .selectFrom(type.items(db, ids))
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('outbox_events as e')
            .select(sql.lit(1).as('one'))
            .where('e.destination', '=', destination)
            .where(type.eventOf),
        ),
      ),
    )
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('destination_backfills as b')
            .select(sql.lit(1).as('one'))
            .where('b.destination', '=', destination)
            .whereRef('b.item', '=', 'i.item'),
        ),
      ),
    );
}

/** How many of the items `ids` of `type` a backfill would queue for `destination`. */
async function countUnqueued<Id>(
  db: Kysely<Database>,
  destination: string,
  type: ItemType<Id>,
  ids: readonly Id[],
) {
  const row = await unqueued(db, destination, type, ids)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * In one transaction: takes the backfill rows of the unqueued items among `ids` (a row another run took
 * first is skipped by the key) and writes one pending event for each row taken: a job's at its current
 * revision, a change's at revision 0 carrying the change.
 */
async function queueItems<Id>(
  db: Kysely<Database>,
  destination: string,
  type: ItemType<Id>,
  ids: readonly Id[],
  nowIso: string,
) {
  return db.transaction().execute(async (trx) => {
    const taken = await trx
      .insertInto('destination_backfills')
      .columns(['destination', 'item', 'job_id', 'queued_at'])
      .expression(
        unqueued(trx, destination, type, ids).select((s) => [
          s.val(destination).as('destination'),
          'i.item',
          'i.job_id',
          s.val(nowIso).as('queued_at'),
        ]),
      )
      .onConflict((oc) => oc.doNothing())
      .returning('item')
      .execute();
    if (taken.length === 0) return 0;
    await trx
      .insertInto('outbox_events')
      .columns([
        'destination',
        'job_id',
        'revision',
        'change_id',
        'status',
        'attempts',
        'next_attempt_at',
        'created_at',
        'updated_at',
      ])
      .expression((eb) =>
        eb
          .selectFrom(type.items(trx, ids))
          .where(
            'i.item',
            'in',
            taken.map((row) => row.item),
          )
          .select((s) => [
            s.val(destination).as('destination'),
            'i.job_id',
            'i.revision',
            'i.change_id',
            sql.lit('pending').as('status'),
            s.lit(0).as('attempts'),
            s.val(nowIso).as('next_attempt_at'),
            s.val(nowIso).as('created_at'),
            s.val(nowIso).as('updated_at'),
          ]),
      )
      .execute();
    return taken.length;
  });
}
