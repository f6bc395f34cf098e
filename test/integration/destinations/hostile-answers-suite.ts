/**
 * Issue 43's table, the rows a CRM answers (HubSpot's destination against its stand-in, on a real
 * database): a 429 whose `policyName` is 7 MiB and new each time, a 429 with an absurd Retry-After, a 2xx
 * page of a million non-objects, and an attempt that throws. Nothing the CRM sends becomes a counter row,
 * a metric series or an unbounded string in the database or the logs; no wait leaves the lane calling in a
 * loop; a page longer than the API's is refused before any per-element work.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createDispatcher } from '../../../src/destinations/create-dispatcher.js';
import { createDestinationMetrics } from '../../../src/destinations/destination-metrics.js';

const COUNTED_POLICIES = new Set([
  'TEN_SECONDLY_ROLLING',
  'SECONDLY',
  'DAILY',
  'BURST',
  'DAILY_SHARE',
  'TOTALREQUESTS',
  'MAX_SHARE',
  'UNKNOWN',
]);

import { listDestinationStates } from '../../../src/destinations/destination-admin.js';
import type { ConfiguredDestination } from '../../../src/destinations/load-destinations.js';

const MAX_OUTSIDE_TEXT_CHARS = 500;

import { type HubSpotStandIn, rateLimitBody, startHubSpotStandIn } from '../../helpers/hubspot/stand-in.js';
import { type DestinationsWorld, openWorld, type Provision, until } from './destinations-context.js';
import { configureHubSpot, setUpHubSpot } from './hubspot-world.js';

const SEVEN_MIB = 7 * 1024 * 1024;

/** Registers the cases on `provision`'s dialect. */
export function defineHostileAnswersSuite(provision: Provision): void {
  let world: DestinationsWorld;
  let hs: HubSpotStandIn;
  /** The fake clock; it starts at the real time, so that the events stored are due. */
  let start = Date.now();
  let clock = start;

  beforeEach(async () => {
    world = await openWorld(provision);
    hs = await startHubSpotStandIn();
    start = Date.now();
    clock = start;
  });
  afterEach(async () => {
    await world.close();
    await hs.close();
  });

  /** Stores a job and its rows, then starts the fake clock at the real time: its event is due. */
  const storeOne = async () => {
    await world.storeFixture('company-reveal');
    await world.store.settled();
    start = Date.now();
    clock = start;
  };
  const events = () => world.database.db.selectFrom('outbox_events').selectAll().orderBy('id').execute();
  const upserts = () => hs.calls().filter((call) => call.path.endsWith('/batch/upsert'));
  /** A configured, set up destination and a dispatcher on the fake clock, driven by `deliverOnce`. */
  const ready = async (): Promise<{ configured: ConfiguredDestination; pass: () => Promise<void> }> => {
    const configured = await configureHubSpot(world, hs, { retry: { schedule: ['1m', '1m', '1m'] } });
    await setUpHubSpot(world, configured);
    // Not started: each pass is one `deliverOnce`, at the fake clock's time.
    const dispatcher = createDispatcher({
      database: world.database,
      destinations: [configured],
      logger: world.logs.logger,
      now: () => clock,
      metrics: createDestinationMetrics(world.registry, {
        db: world.database.db,
        names: ['crm'],
        now: () => clock,
      }),
    });
    await dispatcher.sync();
    return {
      configured,
      pass: async () => {
        await dispatcher.deliverOnce();
      },
    };
  };

  it('a 429 whose policyName is 7 MiB, new each time: counters from the fixed set, strings bounded', async () => {
    const { pass } = await ready();
    await storeOne();
    for (let round = 0; round < 3; round += 1) {
      const policyName = `${String(round).repeat(16)}${'P'.repeat(SEVEN_MIB)}`;
      hs.failNext({
        status: 429,
        body: {
          ...rateLimitBody('TEN_SECONDLY_ROLLING'),
          policyName,
          message: `\r\nINFO forged\u001b[31m ${'m'.repeat(100_000)}`,
        },
        match: { pathIncludes: '/batch/upsert' },
      });
      const before = upserts().length;
      await pass();
      expect(upserts().length).toBe(before + 1);
      clock += 11_000;
    }
    const counters = await world.database.db.selectFrom('destination_counters').selectAll().execute();
    for (const row of counters) {
      expect(row.counter.length).toBeLessThanOrEqual(40);
      if (row.counter.startsWith('rate_limited_'))
        expect(COUNTED_POLICIES.has(row.counter.slice('rate_limited_'.length).toUpperCase())).toBe(true);
    }
    const [state] = await listDestinationStates(world.database.db, clock);
    expect(state!.counters.rate_limited_unknown).toBe(3);
    expect(state!.last_error!.length).toBeLessThanOrEqual(MAX_OUTSIDE_TEXT_CHARS);
    expect(state!.last_error).not.toMatch(/[\n\r]/);
    for (const event of await events())
      expect(String(event.last_error ?? '').length).toBeLessThanOrEqual(MAX_OUTSIDE_TEXT_CHARS);
    const metrics = await world.registry.metrics();
    expect(metrics.length).toBeLessThan(64 * 1024);
    expect(world.logs.text().length).toBeLessThan(256 * 1024);
  });

  it('a 429 with Retry-After 99999999999999: paused a day, not a call a second (fake clock, 30 s)', async () => {
    const { pass } = await ready();
    await storeOne();
    hs.failNext({
      status: 429,
      body: rateLimitBody('TEN_SECONDLY_ROLLING'),
      headers: { 'Retry-After': '99999999999999' },
      match: { pathIncludes: '/batch/upsert' },
    });
    for (let second = 0; second < 30; second += 1) {
      await pass();
      clock += 1_000;
    }
    expect(upserts().length).toBe(1);
    const [event] = await events();
    expect(event!.status).toBe('pending');
    const due = Date.parse(event!.next_attempt_at);
    expect(due - start).toBeLessThanOrEqual(86_400_000 + 30_000);
    expect(due - start).toBeGreaterThan(3_600_000);
    expect(world.logs.text()).not.toContain('RangeError');
  });

  it('a 2xx page of a million non-objects is refused at once, as a failed attempt on the schedule', async () => {
    const { pass } = await ready();
    await storeOne();
    const zeros = `{"results":[${'0,'.repeat(1_000_000)}0]}`;
    hs.failNext({ status: 200, body: JSON.parse(zeros), match: { pathIncludes: '/batch/upsert' } });
    await pass();
    await until('the attempt is recorded', async () => (await events())[0]!.attempts === 1);
    const [event] = await events();
    expect(event!.status).toBe('pending');
    expect(event!.last_error).toMatch(/results.*(more than|items)/);
    expect(Date.parse(event!.next_attempt_at) - clock).toBeGreaterThanOrEqual(50_000);
  });
}
