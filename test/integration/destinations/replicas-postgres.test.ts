/**
 * Two dispatchers (as two `serve` replicas) on one Postgres database share the outbox: every event is
 * delivered, none by both at once, and in steady state none twice.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDispatcher, type Dispatcher } from '../../../src/destinations/create-dispatcher.js';
import { parseDestinations } from '../../../src/destinations/load-destinations.js';
import type { HooksyncDatabase } from '../../../src/storage/open-database.js';
import { openMigratedDatabase } from '../../../src/storage/open-migrated-database.js';
import { createTestDatabase, pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';
import {
  createWebhookSecret,
  type StandardWebhookConsumer,
  startStandardWebhookConsumer,
} from '../../helpers/standard-webhook-consumer.js';
import { type DestinationsWorld, openWorld, until } from './destinations-context.js';

describe.skipIf(!TEST_DATABASE_URL)(pgSuiteName('destinations: two replicas on Postgres'), () => {
  let world: DestinationsWorld;
  let consumer: StandardWebhookConsumer;
  let second: HooksyncDatabase;
  const dispatchers: Dispatcher[] = [];

  beforeEach(async () => {
    world = await openWorld(createTestDatabase);
    second = await openMigratedDatabase(world.url);
  });

  afterEach(async () => {
    for (const dispatcher of dispatchers.splice(0)) await dispatcher.stop();
    await second.close();
    await world.close();
    await consumer.close();
  });

  it('never sends one event from two replicas at once, and sends each once', async () => {
    const secret = createWebhookSecret();
    consumer = await startStandardWebhookConsumer(secret);
    const inFlight = new Set<string>();
    const overlaps: string[] = [];
    consumer.answer(async (_event, request) => {
      const id = String(request.headers['webhook-id']);
      if (inFlight.has(id)) overlaps.push(id);
      inFlight.add(id);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight.delete(id);
      return { status: 200 };
    });
    const document = {
      destinations: [{ name: 'warehouse', type: 'webhook', url: consumer.url, secret, concurrency: 4 }],
    };
    const destinations = await parseDestinations(document, {}, 'test');
    const sends = [0, 0];
    for (const [index, database] of [world.database, second].entries()) {
      const counting: typeof fetch = (input, init) => {
        sends[index]! += 1;
        return fetch(input, init);
      };
      const dispatcher = createDispatcher({ database, destinations, pollMs: 20, fetch: counting });
      await dispatcher.sync();
      dispatchers.push(dispatcher);
    }
    const total = 120;
    const stored: Promise<unknown>[] = [];
    for (let i = 0; i < total; i += 1) stored.push(world.storeFixture('company-reveal'));
    await Promise.all(stored);
    for (const dispatcher of dispatchers) dispatcher.start();
    await until(`${total} events are accepted`, () => consumer.accepted().length >= total, 60_000);
    await until('every outcome is recorded', async () => {
      const row = await world.database.db
        .selectFrom('outbox_events')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('status', '=', 'delivered')
        .executeTakeFirstOrThrow();
      return Number(row.n) === total;
    });
    const ids = consumer.accepted().map((entry) => entry.id);
    expect(overlaps).toEqual([]);
    expect(new Set(ids).size).toBe(total);
    expect(ids).toHaveLength(total);
    // Both replicas did part of the work.
    expect(sends[0]).toBeGreaterThan(0);
    expect(sends[1]).toBeGreaterThan(0);
    expect(sends[0]! + sends[1]!).toBe(total);
  });
});
