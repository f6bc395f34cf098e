/**
 * In-process pieces for the watches' tests: a migrated database (SQLite file or a Postgres database of its
 * own), the simulator as the service, a launcher over a real client and job store, and a fake clock whose
 * sleeps pass at once (advancing its time), so that a cycle's timing is exact and never depends on load.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createClient } from '../../../src/client/create-client.js';
import { createLauncher } from '../../../src/launch/create-launcher.js';
import { createSimulator, type Simulator } from '../../../src/simulator/create-simulator.js';
import type { SimulatorOptions } from '../../../src/simulator/simulator-options.js';
import { createJobStore } from '../../../src/storage/job-store/job-store.js';
import type { HooksyncDatabase } from '../../../src/storage/open-database.js';
import { openMigratedDatabase } from '../../../src/storage/open-migrated-database.js';
import { parseWatches, type WatchDefinition } from '../../../src/watches/load-watches.js';
import type { CycleDeps } from '../../../src/watches/run-cycle.js';
import type { WatchClock } from '../../../src/watches/watch-clock.js';
import { createDatabaseUrl, type Dialect } from '../../helpers/receiver-harness.js';

/** A clock that starts at `startMs` and moves only when slept on; `onSleep` runs before each sleep ends. */
export interface FakeClock extends WatchClock {
  readonly sleeps: number[];
  advance(ms: number): void;
  onSleep: ((ms: number) => Promise<void> | void) | undefined;
}

export function createFakeClock(startMs = Date.parse('2026-11-26T00:00:00.000Z')): FakeClock {
  let nowMs = startMs;
  const clock: FakeClock = {
    sleeps: [],
    onSleep: undefined,
    now: () => nowMs,
    advance(ms) {
      nowMs += ms;
    },
    async sleep(ms, signal) {
      if (signal.aborted) return false;
      clock.sleeps.push(ms);
      await clock.onSleep?.(ms);
      // Let other tasks run (checks in flight), without real waiting.
      await new Promise((resolve) => setImmediate(resolve));
      nowMs += Math.max(0, ms);
      return !signal.aborted;
    },
  };
  return clock;
}

export interface WatchHarness {
  readonly dir: string;
  readonly sim: Simulator;
  readonly database: HooksyncDatabase;
  /** Where the database is, for a receiver sharing it. */
  readonly databaseUrl: string;
  readonly clock: FakeClock;
  readonly logs: string[];
  deps(overrides?: Partial<CycleDeps>): CycleDeps;
  write(name: string, text: string): Promise<string>;
  watch(entry: Record<string, unknown>): Promise<WatchDefinition>;
  close(): Promise<void>;
}

export async function createWatchHarness(
  dialect: Dialect,
  simOptions: SimulatorOptions = {},
  /** The key the client sends (default the simulator's own). */
  apiKey?: string,
): Promise<WatchHarness> {
  const dir = await mkdtemp(join(tmpdir(), 'hooksync-watches-'));
  const sim = await createSimulator({
    seed: 7,
    rate: { perInterval: 1000, intervalSeconds: 1 },
    ...simOptions,
  });
  const url = await createDatabaseUrl(dialect);
  const database = await openMigratedDatabase(url.url);
  const logs: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(line) });
  const store = createJobStore({ database, logger });
  const client = createClient({
    baseUrl: sim.url,
    apiKey: apiKey ?? sim.apiKey,
    logger,
    rateLimit: { perInterval: 1000, intervalSeconds: 1 },
  });
  const launcher = createLauncher({ client, store, db: database.db });
  const clock = createFakeClock();
  return {
    dir,
    sim,
    database,
    databaseUrl: url.url,
    clock,
    logs,
    deps: (overrides = {}) => ({
      db: database.db,
      launcher,
      logger,
      clock,
      webhookUrl: undefined,
      rate: { requests: 1000, perMs: 1000 },
      ...overrides,
    }),
    async write(name, text) {
      const path = join(dir, name);
      await writeFile(path, text);
      return path;
    },
    async watch(entry) {
      const [watch] = await parseWatches(
        { watches: [{ every: '10s', ...entry }] },
        { label: 'test', baseDir: dir, nowMs: clock.now() },
      );
      return watch!;
    },
    async close() {
      await store.close();
      await database.close();
      await sim.close();
      await url.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
