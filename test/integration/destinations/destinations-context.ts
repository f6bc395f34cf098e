/**
 * What the destinations suites share: a migrated database (SQLite file or fresh Postgres database), the
 * in-process job store, destinations parsed from a document as the file would be, a dispatcher over them,
 * a consumer verifying with `standardwebhooks`, and log lines collected in memory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import {
  createDispatcher,
  type Dispatcher,
  type DispatcherOptions,
} from '../../../src/destinations/create-dispatcher.js';
import { createDestinationMetrics } from '../../../src/destinations/destination-metrics.js';
import {
  type ConfiguredDestination,
  parseDestinations,
} from '../../../src/destinations/load-destinations.js';
import { createJobStore, type JobStore } from '../../../src/storage/job-store/job-store.js';
import type { HooksyncDatabase } from '../../../src/storage/open-database.js';
import { openMigratedDatabase } from '../../../src/storage/open-migrated-database.js';
import { envelopeText, type FixtureName } from '../../helpers/envelope-texts.js';
import { UNTIL_DEFAULT_TIMEOUT_MS, until as waitUntil } from '../../helpers/until.js';

export type Dialect = 'sqlite' | 'postgres';
export type Provision = () => Promise<{ url: string; drop: () => Promise<void> }>;

/** A SQLite file in a fresh temp folder. */
export const provisionSqlite: Provision = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hooksync-dest-'));
  return { url: join(dir, 'hooksync.db'), drop: async () => rmSync(dir, { recursive: true, force: true }) };
};

/** Log lines in memory. */
export function collectLogs() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), text: () => lines.join('') };
}

/** One test's world: database, store, destinations, dispatcher(s). */
export interface DestinationsWorld {
  readonly url: string;
  readonly database: HooksyncDatabase;
  readonly store: JobStore;
  readonly logs: ReturnType<typeof collectLogs>;
  readonly registry: Registry;
  configure(document: unknown, env?: Record<string, string>): Promise<ConfiguredDestination[]>;
  /** A dispatcher over `destinations`, synced and started, polling fast; stopped at close. */
  dispatcher(
    destinations: readonly ConfiguredDestination[],
    options?: Partial<DispatcherOptions>,
  ): Promise<Dispatcher>;
  /** Stores a fixture envelope (status replaced when given); returns its job_id and text. */
  storeFixture(
    name: FixtureName,
    options?: { jobId?: string; status?: string },
  ): Promise<{ jobId: string; text: string }>;
  close(): Promise<void>;
}

/** Opens a world on a fresh database. */
export async function openWorld(provision: Provision): Promise<DestinationsWorld> {
  const { url, drop } = await provision();
  const database = await openMigratedDatabase(url);
  const store = createJobStore({ database });
  const logs = collectLogs();
  const registry = new Registry();
  const dispatchers: Dispatcher[] = [];
  return {
    url,
    database,
    store,
    logs,
    registry,
    configure: (document, env = {}) => parseDestinations(document, env, 'test destinations'),
    async dispatcher(destinations, options = {}) {
      const dispatcher = createDispatcher({
        database,
        destinations,
        logger: logs.logger,
        pollMs: 25,
        // The test process is busy with its own checks: concurrency is under test, not yielding.
        yieldUtilization: 2,
        metrics: createDestinationMetrics(registry, {
          db: database.db,
          names: destinations.map((d) => d.name),
          now: Date.now,
        }),
        ...options,
      });
      await dispatcher.sync();
      dispatcher.start();
      dispatchers.push(dispatcher);
      return dispatcher;
    },
    async storeFixture(name, options = {}) {
      let { text, jobId } = envelopeText(name, options.jobId);
      if (options.status !== undefined)
        text = text.replace('"status": "SUCCEEDED"', `"status": "${options.status}"`);
      await store.store({ envelopeText: text, source: 'webhook' });
      return { jobId, text };
    },
    async close() {
      for (const dispatcher of dispatchers) await dispatcher.stop();
      await store.close();
      await database.close();
      await drop();
    },
  };
}

/** Waits until `check` holds, or fails naming `what` (test/helpers/until.ts). */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = UNTIL_DEFAULT_TIMEOUT_MS,
): Promise<void> {
  await waitUntil(check, { message: what, timeout: timeoutMs });
}

/** Stores the fixtures `names` (source `finder`) in the database at `url`, migrating it first. */
export async function storeFixtures(url: string, names: FixtureName[]): Promise<void> {
  const database = await openMigratedDatabase(url);
  const store = createJobStore({ database });
  try {
    for (const name of names) await store.store({ envelopeText: envelopeText(name).text, source: 'finder' });
  } finally {
    await store.close();
    await database.close();
  }
}
