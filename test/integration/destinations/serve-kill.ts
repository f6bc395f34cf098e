/**
 * What the serve-kill tests share: the destinations file and serve's environment, the 20 signed envelopes
 * posted to a running serve (even ones company reveals, odd ones movers, each its own domain and email), and
 * the restart that waits until every event is delivered.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { HooksyncDatabase } from '../../../src/storage/open-database.js';
import { openMigratedDatabase } from '../../../src/storage/open-migrated-database.js';
import { envelopeText } from '../../helpers/envelope-texts.js';
import { deliver } from '../../helpers/receiver-harness.js';
import { type ServeProcess, spawnServe, type useServeFixture } from '../../helpers/spawn-serve.js';
import { signDelivery } from '../../helpers/webhook-signer.js';
import { until } from './destinations-context.js';

type ServeFixture = ReturnType<typeof useServeFixture>;

/** How many jobs each test stores. */
export const KILL_JOBS = 20;

/**
 * Writes `document` as `<name>.json` in the fixture's directory; returns serve's environment over
 * `<name>.db` with `secrets` added.
 */
export function writeServeEnv(
  fixture: ServeFixture,
  name: string,
  document: unknown,
  secrets: Record<string, string>,
): Record<string, string> {
  const file = join(fixture.dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(document));
  return {
    HOOKSYNC_DATABASE_URL: join(fixture.dir, `${name}.db`),
    HOOKSYNC_JWKS_URL: fixture.jwks.url,
    HOOKSYNC_DESTINATIONS: file,
    ...secrets,
  };
}

/** Posts the 20 jobs to `serve`, signed with the fixture's key, each answered 200. */
export async function postKillJobs(fixture: ServeFixture, serve: ServeProcess): Promise<void> {
  const iat = Math.floor(Date.now() / 1000);
  for (let i = 0; i < KILL_JOBS; i += 1) {
    const base = envelopeText(i % 2 === 0 ? 'company-reveal' : 'job-change-moved');
    const text = base.text
      .replaceAll('acme-robotics.com', `acme-${i}.com`)
      .replaceAll('maria.keller@globex.com', `maria.${i}@globex.com`);
    const answer = await deliver(
      serve.url,
      text,
      await signDelivery(text, { key: fixture.key, iat, jobId: base.jobId }),
    );
    expect(answer.status).toBe(200);
  }
}

/**
 * Restarts serve and waits (up to `timeoutMs`: the killed process's claims lapse after its batch timeout
 * plus a 10 s margin) until all 20 events are delivered; runs `check` on the database before stopping it.
 * Returns the restarted process's stderr.
 */
export async function restartUntilDelivered(
  env: Record<string, string>,
  timeoutMs: number,
  check: (database: HooksyncDatabase) => Promise<void> = async () => {},
): Promise<string> {
  const restarted = await spawnServe(env);
  const database = await openMigratedDatabase(env.HOOKSYNC_DATABASE_URL!);
  try {
    await until(
      'every event is delivered',
      async () => {
        const rows = await database.db.selectFrom('outbox_events').select('status').execute();
        return rows.length === KILL_JOBS && rows.every((row) => row.status === 'delivered');
      },
      timeoutMs,
    );
    await check(database);
  } finally {
    await database.close();
    restarted.child.kill('SIGTERM');
    await restarted.exited;
  }
  return restarted.stderr();
}
