/**
 * The destinations suite, run on SQLite and on Postgres: stored jobs reach a real consumer that verifies
 * every request with the `standardwebhooks` package; outages, hangs, exhausted schedules, replay, revision
 * order, kinds filter, 410 pause, template rows. The retry schedule runs on a faked Date, never on sleeps.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { listDestinationStates, replayEvents } from '../../../src/destinations/destination-admin.js';
import { resumeDestination } from '../../../src/destinations/outbox.js';
import {
  createWebhookSecret,
  type StandardWebhookConsumer,
  startStandardWebhookConsumer,
} from '../../helpers/standard-webhook-consumer.js';
import { type DestinationsWorld, openWorld, type Provision, until } from './destinations-context.js';

function webhook(name: string, url: string, secret: string, extra: Record<string, unknown> = {}) {
  return { name, type: 'webhook', url, secret, timeout: '2s', ...extra };
}

async function states(world: DestinationsWorld) {
  const list = await listDestinationStates(world.database.db, Date.now());
  return Object.fromEntries(list.map((state) => [state.name, state]));
}

/** Defines the suite on one dialect. */
export function defineDestinationsSuite(provision: Provision): void {
  let world: DestinationsWorld;
  let consumer: StandardWebhookConsumer;
  let secret: string;

  beforeEach(async () => {
    // Only Date is faked: sockets and timers run for real, the retry schedule reads the faked clock.
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    world = await openWorld(provision);
    secret = createWebhookSecret();
    consumer = await startStandardWebhookConsumer(secret);
  });

  afterEach(async () => {
    await world.close();
    await consumer.close();
    vi.useRealTimers();
  });

  it('delivers every stored job once, signed, with the envelope embedded byte for byte', async () => {
    const destinations = await world.configure({
      destinations: [webhook('warehouse', consumer.url, secret)],
    });
    const dispatcher = await world.dispatcher(destinations);
    const stored = [
      await world.storeFixture('company-reveal'),
      await world.storeFixture('job-change-moved'),
      await world.storeFixture('search-contact'),
    ];
    await until('three events are accepted', () => consumer.accepted().length === 3);
    expect(consumer.rejected).toEqual([]);
    for (const { jobId, text } of stored) {
      const got = consumer.accepted().find((entry) => entry.event.data.job_id === jobId)!;
      expect(got.event.type).toBe('job.stored');
      expect(got.event.data).toMatchObject({ source: 'webhook', status: 'SUCCEEDED', revision: 1 });
      // The stored text itself, not a re-serialization of it.
      expect(got.body.endsWith(`,"envelope":${text}}}`)).toBe(true);
      expect(got.id).toBe(`job_${jobId}_r1`);
    }
    await until('the outcomes are recorded', async () => (await states(world)).warehouse?.delivered === 3);
    expect((await states(world)).warehouse).toMatchObject({ pending: 0, failed: 0, paused: false });
    // Steady state: a pass over everything due sends nothing twice.
    await dispatcher.deliverOnce();
    expect(consumer.verified).toHaveLength(3);
  });

  it('sends only the kinds a destination asks for', async () => {
    const destinations = await world.configure({
      destinations: [
        webhook('changes', consumer.url, secret, { kinds: ['job_change'] }),
        webhook('everything', consumer.url, secret),
      ],
    });
    await world.dispatcher(destinations);
    await world.storeFixture('company-reveal');
    await world.storeFixture('job-change-left');
    await until('the events are recorded', async () => {
      const now = await states(world);
      return now.changes?.delivered === 1 && now.everything?.delivered === 2;
    });
    const kinds = consumer
      .accepted()
      .map((entry) => entry.event.data.kind)
      .sort();
    expect(kinds).toEqual(['company_reveal', 'job_change', 'job_change']);
  });

  it('retries through an outage on its schedule, honouring Retry-After, then delivers with the same webhook-id', async () => {
    const destinations = await world.configure({
      destinations: [
        webhook('warehouse', consumer.url, secret, { retry: { schedule: ['5s', '30s', '2m'] } }),
      ],
    });
    let down = true;
    consumer.answer(() => (down ? { status: 503, headers: { 'retry-after': '60' } } : { status: 200 }));
    const dispatcher = await world.dispatcher(destinations, { random: () => 0.5 });
    const { jobId } = await world.storeFixture('company-reveal');
    await until('the first attempt fails', () => consumer.verified.length === 1);
    await until('the retry is recorded', async () => (await states(world)).warehouse?.last_error !== null);
    // Retry-After (60 s) wins over the schedule's first wait (5 s): not due at +30 s, due at +61 s.
    vi.setSystemTime(Date.now() + 30_000);
    await dispatcher.deliverOnce();
    expect(consumer.verified).toHaveLength(1);
    down = false;
    vi.setSystemTime(Date.now() + 31_000);
    await until('it is delivered', () => consumer.accepted().length === 1);
    expect(consumer.verified.map((entry) => entry.id)).toEqual([`job_${jobId}_r1`, `job_${jobId}_r1`]);
    await until('delivered is recorded', async () => (await states(world)).warehouse?.delivered === 1);
  });

  it('does not let a hanging destination hold up another one', async () => {
    const hanging = await startStandardWebhookConsumer(secret);
    hanging.answer(() => 'hang');
    try {
      const destinations = await world.configure({
        destinations: [
          webhook('stuck', hanging.url, secret, { timeout: '2s', concurrency: 2 }),
          webhook('healthy', consumer.url, secret),
        ],
      });
      await world.dispatcher(destinations);
      for (let i = 0; i < 6; i += 1) await world.storeFixture('company-reveal');
      await until('the healthy destination has every event', () => consumer.accepted().length === 6);
      // Bounded concurrency: two requests hang, the other events wait their turn.
      expect(hanging.server.requests.length).toBe(2);
      await until(
        'the stuck one has timed out',
        async () => (await states(world)).stuck?.last_error === 'timed out',
      );
      const stuck = (await states(world)).stuck!;
      expect(stuck.pending).toBe(6);
      expect(stuck.delivered).toBe(0);
    } finally {
      await hanging.close();
    }
  });

  it('fails an event once its schedule is spent, keeps it, and delivers it when replayed', async () => {
    const destinations = await world.configure({
      destinations: [webhook('warehouse', consumer.url, secret, { retry: { schedule: ['1m', '1m'] } })],
    });
    let healthy = false;
    consumer.answer(() => (healthy ? { status: 204 } : { status: 500, body: 'boom' }));
    const dispatcher = await world.dispatcher(destinations, { random: () => 0.5 });
    const { jobId } = await world.storeFixture('job-change-moved');
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      await until(`attempt ${attempt}`, () => consumer.verified.length === attempt);
      await until(`attempt ${attempt} recorded`, async () => {
        const row = await world.database.db
          .selectFrom('outbox_events')
          .select(['attempts', 'status'])
          .executeTakeFirstOrThrow();
        return row.attempts === attempt;
      });
      vi.setSystemTime(Date.now() + 120_000);
    }
    await until('it is failed', async () => (await states(world)).warehouse?.failed === 1);
    expect((await states(world)).warehouse).toMatchObject({ pending: 0, last_error: 'HTTP 500: boom' });
    expect(world.logs.text()).toContain('gave up on an event');
    // Nothing more is tried once failed.
    vi.setSystemTime(Date.now() + 3_600_000);
    await dispatcher.deliverOnce();
    expect(consumer.verified).toHaveLength(3);

    healthy = true;
    const count = await replayEvents(
      world.database.db,
      'warehouse',
      { failed: true },
      new Date().toISOString(),
    );
    expect(count).toBe(1);
    // The dispatcher runs meanwhile: the replayed event is pending, or already delivered.
    const replayed = (await states(world)).warehouse;
    expect(replayed).toMatchObject({ failed: 0 });
    expect((replayed?.pending ?? 0) + (replayed?.delivered ?? 0)).toBe(1);
    await until('the replay is delivered', () => consumer.accepted().length === 1);
    expect(consumer.accepted()[0]!.id).toBe(`job_${jobId}_r1`);
    await until('delivered is recorded', async () => (await states(world)).warehouse?.delivered === 1);
  });

  it('delivers the revisions of one job in order, never an older one after a newer', async () => {
    const destinations = await world.configure({
      destinations: [webhook('warehouse', consumer.url, secret)],
    });
    await world.dispatcher(destinations);
    // Up: each revision is delivered as it is stored.
    const first = await world.storeFixture('company-reveal', { status: 'RUNNING' });
    await until('revision 1 arrives', () => consumer.accepted().length === 1);
    await world.storeFixture('company-reveal', { jobId: first.jobId });
    await until('revision 2 arrives', () => consumer.accepted().length === 2);
    expect(consumer.accepted().map((entry) => [entry.event.data.revision, entry.event.data.status])).toEqual([
      [1, 'RUNNING'],
      [2, 'SUCCEEDED'],
    ]);
  });

  it('after an outage, sends a job once at its newest revision (older ones are superseded)', async () => {
    const destinations = await world.configure({
      destinations: [webhook('warehouse', consumer.url, secret, { retry: { schedule: ['1m'] } })],
    });
    let down = true;
    consumer.answer(() => (down ? { status: 502 } : { status: 200 }));
    const dispatcher = await world.dispatcher(destinations, { random: () => 0.5 });
    const first = await world.storeFixture('job-change-moved', { status: 'RUNNING' });
    await until('revision 1 is attempted', () => consumer.verified.length === 1);
    await world.storeFixture('job-change-moved', { jobId: first.jobId });
    await dispatcher.deliverOnce();
    // Revision 2 waits behind revision 1, still pending.
    expect(consumer.verified).toHaveLength(1);
    down = false;
    vi.setSystemTime(Date.now() + 120_000);
    await until('the newest revision arrives', () => consumer.accepted().length === 1);
    await dispatcher.deliverOnce();
    expect(consumer.accepted().map((entry) => entry.event.data.revision)).toEqual([2]);
    const rows = await world.database.db
      .selectFrom('outbox_events')
      .select(['revision', 'status'])
      .orderBy('revision')
      .execute();
    expect(rows).toEqual([
      { revision: 1, status: 'superseded' },
      { revision: 2, status: 'delivered' },
    ]);
  });

  it('pauses a destination that answers 410 and resumes it on demand', async () => {
    const destinations = await world.configure({
      destinations: [webhook('warehouse', consumer.url, secret)],
    });
    let gone = true;
    consumer.answer(() => (gone ? { status: 410 } : { status: 200 }));
    await world.dispatcher(destinations);
    await world.storeFixture('company-reveal');
    await world.storeFixture('company-reveal');
    await until('it is paused', async () => (await states(world)).warehouse?.paused === true);
    await until(
      'the attempts in flight are recorded',
      async () => (await states(world)).warehouse?.last_error !== null,
    );
    // Paused: nothing more is sent (the two events may have gone out together before the 410).
    const sent = consumer.verified.length;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(consumer.verified.length).toBe(sent);
    expect((await states(world)).warehouse).toMatchObject({ pending: 2, failed: 0 });
    expect(world.logs.text()).toContain('destination paused');
    gone = false;
    expect(await resumeDestination(world.database.db, 'warehouse', new Date().toISOString())).toBe(true);
    await until('both are delivered after the resume', () => consumer.accepted().length === 2);
  });

  it('carries the template rows keyed by column names', async () => {
    const destinations = await world.configure({
      destinations: [
        webhook('crm', consumer.url, secret, { template: 'persons', kinds: ['search_contact'] }),
      ],
    });
    await world.dispatcher(destinations);
    await world.storeFixture('search-contact');
    await until('the event arrives', () => consumer.accepted().length === 1);
    const rows = consumer.accepted()[0]!.event.data.rows as Array<Record<string, string>>;
    expect(rows.length).toBeGreaterThan(0);
    expect(Object.keys(rows[0]!)).toContain('first_name');
  });
}
