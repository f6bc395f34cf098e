/**
 * `destinations backfill`, run on SQLite and on Postgres: a destination configured after 500 jobs were
 * stored receives every one of them, once, through two backfills run at the same moment from two database
 * handles (two replicas), a third one, and one run after the delivered events were pruned; the dry run
 * counts without queueing; replay says why it has nothing for such a destination. And a timed pause shown
 * as paused, with its end.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type BackfillReport, backfillEvents } from '../../../src/destinations/backfill-events.js';
import {
  listDestinationStates,
  replayEvents,
  storedWithoutEvents,
} from '../../../src/destinations/destination-admin.js';
import {
  deferPendingEvents,
  pruneDeliveredEvents,
  syncDestinations,
} from '../../../src/destinations/outbox.js';
import { openMigratedDatabase } from '../../../src/storage/open-migrated-database.js';
import {
  createWebhookSecret,
  type StandardWebhookConsumer,
  startStandardWebhookConsumer,
} from '../../helpers/standard-webhook-consumer.js';
import { type DestinationsWorld, openWorld, type Provision, until } from './destinations-context.js';

const JOBS = 500;

function webhook(name: string, url: string, secret: string) {
  return { name, type: 'webhook', url, secret, timeout: '2s' };
}

/** Defines the suite on one dialect. */
export function defineBackfillSuite(provision: Provision): void {
  let world: DestinationsWorld;
  let consumer: StandardWebhookConsumer;
  let secret: string;

  beforeEach(async () => {
    world = await openWorld(provision);
    secret = createWebhookSecret();
    consumer = await startStandardWebhookConsumer(secret);
  });

  afterEach(async () => {
    await world.close();
    await consumer.close();
  });

  it('a destination configured after 500 jobs were stored receives each of them once', async () => {
    const sinceIso = new Date(Date.now() - 60_000).toISOString();
    const first = await world.configure({ destinations: [webhook('first', consumer.url, secret)] });
    // Only `first` is routed while the jobs arrive; no dispatcher runs for it (the consumer hears `late` only).
    await syncDestinations(world.database.db, first, now());
    const stored = await Promise.all(
      Array.from({ length: JOBS }, (_, i) =>
        world.storeFixture(i % 2 === 0 ? 'company-reveal' : 'job-change-moved'),
      ),
    );
    const late = await world.configure({
      destinations: [webhook('first', consumer.url, secret), webhook('late', consumer.url, secret)],
    });
    await syncDestinations(world.database.db, late, new Date().toISOString());
    const { db } = world.database;

    // Replay has nothing for it, and says so.
    expect(await replayEvents(db, 'late', { since: sinceIso }, new Date().toISOString())).toBe(0);
    expect(await storedWithoutEvents(db, 'late', sinceIso)).toBe(JOBS);
    expect(await storedWithoutEvents(db, 'first', sinceIso)).toBeUndefined();

    const dry = await backfillEvents(db, { destination: 'late', sinceIso, dryRun: true, nowIso: now() });
    expect(dry.jobs).toEqual({ considered: JOBS, queued: JOBS });
    expect(await eventCount(world, 'late')).toBe(0);

    // Two replicas at the same moment: the key lets each job be queued by one of them only.
    const replica = await openMigratedDatabase(world.url);
    const progress: BackfillReport['jobs'][] = [];
    let reports: BackfillReport[];
    const runs = [
      () =>
        backfillEvents(db, {
          destination: 'late',
          sinceIso,
          nowIso: now(),
          pageSize: 50,
          onProgress: (r) => progress.push({ ...r.jobs }),
        }),
      () => backfillEvents(replica.db, { destination: 'late', sinceIso, nowIso: now(), pageSize: 50 }),
    ];
    try {
      // SQLite's replicas are processes: two handles in one thread would wait on each other's lock while
      // holding the event loop, so there they run one after the other (the key is the same).
      reports =
        world.database.dialect === 'postgres'
          ? await Promise.all(runs.map((run) => run()))
          : [await runs[0]!(), await runs[1]!()];
    } finally {
      await replica.close();
    }
    expect(reports[0]!.jobs.queued + reports[1]!.jobs.queued).toBe(JOBS);
    expect(progress.length).toBe(JOBS / 50);
    expect(progress.at(-1)!.considered).toBe(JOBS);
    expect(await eventCount(world, 'late')).toBe(JOBS);

    const again = await backfillEvents(db, { destination: 'late', sinceIso, nowIso: now() });
    expect(again.jobs).toEqual({ considered: JOBS, queued: 0 });

    await world.dispatcher(late.filter((d) => d.name === 'late'));
    await until('500 events reach the late destination', () => lateIds().length === JOBS);
    await until(
      'the outcomes are recorded',
      async () =>
        (await listDestinationStates(db, Date.now())).find((s) => s.name === 'late')?.delivered === JOBS,
    );
    expect(new Set(lateIds()).size).toBe(JOBS);
    expect(new Set(lateIds())).toEqual(new Set(stored.map((s) => s.jobId)));

    // Delivered events pruned: the backfill rows still say they were queued.
    await pruneDeliveredEvents(db, new Date(Date.now() + 60_000).toISOString());
    const afterPrune = await backfillEvents(db, { destination: 'late', sinceIso, nowIso: now() });
    expect(afterPrune.jobs.queued).toBe(0);
    expect(await eventCount(world, 'late')).toBe(0);
    expect(consumer.rejected).toEqual([]);
  });

  it('refuses a kind the destination does not take, and takes only the kind asked for', async () => {
    const sinceIso = new Date(Date.now() - 60_000).toISOString();
    await world.storeFixture('company-reveal');
    await world.storeFixture('job-change-moved');
    const destinations = await world.configure({
      destinations: [{ ...webhook('reveals', consumer.url, secret), kinds: ['company_reveal'] }],
    });
    await syncDestinations(world.database.db, destinations, now());
    const { db } = world.database;
    await expect(
      backfillEvents(db, { destination: 'reveals', sinceIso, kind: 'job_change', nowIso: now() }),
    ).rejects.toThrow(/--kind: reveals does not take job_change/);
    const report = await backfillEvents(db, { destination: 'reveals', sinceIso, nowIso: now() });
    expect(report.jobs).toEqual({ considered: 1, queued: 1 });
    expect(report.changes).toEqual({ considered: 0, queued: 0 });
  });

  it('backfills the watch changes of the window for a destination that takes them, once', async () => {
    const sinceIso = new Date(Date.now() - 60_000).toISOString();
    const { jobId } = await world.storeFixture('job-change-moved');
    const detected = now();
    for (const key of ['row-1', 'row-2', 'row-3'])
      await world.database.db
        .insertInto('watch_changes')
        .values({
          watch: 'team',
          row_key: key,
          cycle: 1,
          change: 'moved',
          change_key: '',
          custom_fields: '{}',
          before: null,
          after: '{}',
          detected_at: detected,
          job_id: jobId,
        })
        .execute();
    const destinations = await world.configure({
      destinations: [{ ...webhook('changes', consumer.url, secret), kinds: ['watch_change'] }],
    });
    await syncDestinations(world.database.db, destinations, now());
    const { db } = world.database;
    const first = await backfillEvents(db, { destination: 'changes', sinceIso, nowIso: now(), pageSize: 2 });
    expect(first.jobs).toEqual({ considered: 0, queued: 0 });
    expect(first.changes).toEqual({ considered: 3, queued: 3 });
    const again = await backfillEvents(db, { destination: 'changes', sinceIso, nowIso: now() });
    expect(again.changes).toEqual({ considered: 3, queued: 0 });
    const events = await db
      .selectFrom('outbox_events')
      .select(['change_id', 'revision'])
      .where('destination', '=', 'changes')
      .execute();
    expect(events).toHaveLength(3);
    expect(events.every((event) => event.change_id !== null && event.revision === 0)).toBe(true);
  });

  it('shows a timed pause (a CRM window) as paused, with its end, until it ends', async () => {
    const destinations = await world.configure({ destinations: [webhook('crm', consumer.url, secret)] });
    await syncDestinations(world.database.db, destinations, now());
    const nowMs = Date.parse('2026-11-28T12:00:00.000Z');
    const until = '2026-11-28T13:00:00.000Z';
    await deferPendingEvents(
      world.database.db,
      'crm',
      until,
      `crm daily limit reached: paused until ${until}`,
      now(),
    );
    const during = (await listDestinationStates(world.database.db, nowMs)).find((s) => s.name === 'crm')!;
    expect(during).toMatchObject({ paused: true, paused_until: until });
    expect(during.last_error).toContain('paused until');
    const after = (await listDestinationStates(world.database.db, Date.parse(until) + 1)).find(
      (s) => s.name === 'crm',
    )!;
    expect(after).toMatchObject({ paused: false, paused_until: null });
  });

  function lateIds(): string[] {
    return consumer.accepted().map((entry) => String(entry.event.data.job_id));
  }
}

function now(): string {
  return new Date().toISOString();
}

async function eventCount(world: DestinationsWorld, destination: string): Promise<number> {
  const row = await world.database.db
    .selectFrom('outbox_events')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('destination', '=', destination)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
