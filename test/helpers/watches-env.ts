/**
 * What the watches' CLI and `serve` tests start from: a watches file in a folder of their own, the
 * environment that points hooksync at it and at the simulator, and the watch most of them run.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Simulator } from '../../src/simulator/create-simulator.js';

/** A contacts CSV: Email and Id columns. */
export function contactsCsv(rows: ReadonlyArray<readonly [email: string, id: string]>): string {
  return ['Email,Id', ...rows.map(([email, id]) => `${email},${id}`)].join('\n');
}

/** Job changes of the contacts in `contacts.csv`, carrying their CRM id; `extra` adds or overrides fields. */
export function championsWatch(extra: Record<string, unknown>): Record<string, unknown> {
  return {
    name: 'champions',
    launch: 'job-change',
    from: { file: 'contacts.csv' },
    map: { professional_email: 'Email' },
    carry: { sf_id: 'Id' },
    ...extra,
  };
}

/**
 * Writes `watches` as `watches.json` in `dir`; returns hooksync's environment over the simulator `sim` and
 * `hooksync.db` in `dir` (logging warnings only), with `extra` added or overriding.
 */
export async function writeWatchesEnv(
  sim: Simulator,
  dir: string,
  watches: unknown[],
  extra: Record<string, string> = {},
): Promise<Record<string, string>> {
  await writeFile(join(dir, 'watches.json'), JSON.stringify({ watches }));
  return {
    HOOKSYNC_API_BASE_URL: sim.url,
    HOOKSYNC_API_KEY: sim.apiKey,
    HOOKSYNC_DATABASE_URL: join(dir, 'hooksync.db'),
    HOOKSYNC_WATCHES: join(dir, 'watches.json'),
    HOOKSYNC_LOG_LEVEL: 'warn',
    ...extra,
  };
}
