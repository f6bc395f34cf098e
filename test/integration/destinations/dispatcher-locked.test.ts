/**
 * The dispatcher's SQLite connection waits for no lock (when-unlocked.ts): every write it makes is retried
 * while another connection holds the write lock, never logged as a failure with its stack. The demo printed
 * a `database is locked` stack when the start-up prune of delivered events met the store committing.
 */
import BetterSqlite3 from 'better-sqlite3';
import type { KyselyPlugin } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openDispatchDatabase } from '../../../src/destinations/open-dispatch-database.js';
import type { HooksyncDatabase } from '../../../src/storage/open-database.js';
import { type DestinationsWorld, openWorld, provisionSqlite, until } from './destinations-context.js';

let world: DestinationsWorld;
let dispatch: HooksyncDatabase;

beforeEach(async () => {
  world = await openWorld(provisionSqlite);
  ({ database: dispatch } = await openDispatchDatabase(world.url, world.database));
});
afterEach(async () => {
  await dispatch.close();
  await world.close();
});

it('prunes old delivered events once the lock is released, logging nothing', async () => {
  const destinations = await world.configure({
    destinations: [
      {
        name: 'hook',
        type: 'webhook',
        url: 'http://127.0.0.1:9/hook',
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      },
    ],
  });
  const { jobId } = await world.storeFixture('company-reveal');
  const old = '2020-01-01T00:00:00.000Z';
  await world.database.db
    .insertInto('outbox_events')
    .values({
      destination: 'hook',
      job_id: jobId,
      revision: 1,
      status: 'delivered',
      attempts: 1,
      next_attempt_at: old,
      created_at: old,
      updated_at: old,
    })
    .execute();
  // Another process committing: the write lock is held while the dispatcher starts.
  const other = new BetterSqlite3(world.url);
  other.exec('BEGIN IMMEDIATE');
  const { createDispatcher } = await import('../../../src/destinations/create-dispatcher.js');
  // Counts the DELETEs the dispatcher's connection is asked to run (each attempt compiles its query anew).
  let deletes = 0;
  const counting: KyselyPlugin = {
    transformQuery: (args) => {
      if (args.node.kind === 'DeleteQueryNode') deletes += 1;
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  const database = { ...dispatch, db: dispatch.db.withPlugin(counting) };
  const dispatcher = createDispatcher({ database, destinations, logger: world.logs.logger, pollMs: 25 });
  dispatcher.start();
  try {
    await until(
      'the prune is tried again while locked, or its failure logged',
      () => deletes >= 2 || world.logs.text().includes('could not'),
    );
    expect(world.logs.text()).not.toContain('could not');
    other.exec('COMMIT');
    const remaining = async () =>
      (
        await world.database.db
          .selectFrom('outbox_events')
          .select('id')
          .where('updated_at', '=', old)
          .execute()
      ).length;
    await until('the old delivered event is pruned', async () => (await remaining()) === 0);
    expect(world.logs.text()).not.toContain('could not');
    expect(world.logs.text()).not.toContain('locked');
  } finally {
    if (other.inTransaction) other.exec('ROLLBACK');
    other.close();
    await dispatcher.stop();
  }
});
