import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countJobs, getJob } from '../../../src/storage/job-queries.js';
import { openDatabase } from '../../../src/storage/open-database.js';
import { envelopeText } from '../../helpers/envelope-texts.js';
import { createTestDatabase, pgSuiteName, TEST_DATABASE_URL } from '../../helpers/postgres.js';
import { deliver } from '../../helpers/receiver-harness.js';
import { spawnServe, useServeFixture } from '../../helpers/spawn-serve.js';
import { signDelivery } from '../../helpers/webhook-signer.js';

const fixture = useServeFixture('hooksync-serve-');

/** Deliveries signed with the real clock: the child process verifies with its own. */
async function signedDeliveries(count: number) {
  const iat = Math.floor(Date.now() / 1000);
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const { text, jobId } = envelopeText(i % 2 === 0 ? 'company-reveal' : 'search-contact');
      return { text, jobId, token: await signDelivery(text, { key: fixture.key, iat, jobId }) };
    }),
  );
}

describe('hooksync serve as a process', () => {
  it('keeps every acknowledged job through a SIGKILL right after the acknowledgements', async () => {
    const databaseUrl = join(fixture.dir, 'crash.db');
    const serve = await spawnServe({
      HOOKSYNC_DATABASE_URL: databaseUrl,
      HOOKSYNC_JWKS_URL: fixture.jwks.url,
    });
    const deliveries = await signedDeliveries(60);
    const acknowledged: string[] = [];
    let killed = false;
    await Promise.all(
      deliveries.map(async (d) => {
        try {
          const answer = await deliver(serve.url, d.text, d.token);
          if (answer.status === 200 && !killed) {
            acknowledged.push(d.jobId);
            if (acknowledged.length === 40) {
              killed = true;
              serve.child.kill('SIGKILL');
            }
          }
        } catch {
          // Connections cut by the kill: not acknowledged, so nothing is promised about them.
        }
      }),
    );
    expect(await serve.exited).toBe('SIGKILL');
    expect(acknowledged.length).toBeGreaterThanOrEqual(40);

    const restarted = await spawnServe({
      HOOKSYNC_DATABASE_URL: databaseUrl,
      HOOKSYNC_JWKS_URL: fixture.jwks.url,
    });
    restarted.child.kill('SIGTERM');
    await restarted.exited;
    const database = await openDatabase(databaseUrl);
    try {
      for (const jobId of acknowledged) expect(await getJob(database.db, jobId), jobId).toBeDefined();
    } finally {
      await database.close();
    }
  });

  it('drains in-flight deliveries on SIGTERM, then exits 0', async () => {
    const databaseUrl = join(fixture.dir, 'drain.db');
    const serve = await spawnServe({
      HOOKSYNC_DATABASE_URL: databaseUrl,
      HOOKSYNC_JWKS_URL: fixture.jwks.url,
    });
    const deliveries = await signedDeliveries(30);
    const answers = deliveries.map((d) => deliver(serve.url, d.text, d.token));
    // Stop while deliveries are flowing: right after the first one is answered.
    await Promise.race(answers);
    serve.child.kill('SIGTERM');
    const settled = await Promise.allSettled(answers);
    expect(await serve.exited).toBe(0);
    const acknowledged = settled.flatMap((s, i) =>
      s.status === 'fulfilled' && s.value.status === 200 ? [deliveries[i]!.jobId] : [],
    );
    expect(acknowledged.length).toBeGreaterThan(0);
    const database = await openDatabase(databaseUrl);
    try {
      for (const jobId of acknowledged) expect(await getJob(database.db, jobId)).toBeDefined();
    } finally {
      await database.close();
    }
    expect(serve.stderr()).toMatch(/draining in-flight deliveries/);
  });

  describe.skipIf(!TEST_DATABASE_URL)(pgSuiteName('two replicas on one Postgres'), () => {
    it('stores each job once when both receive every delivery', async () => {
      const pg = await createTestDatabase();
      const env = { HOOKSYNC_DATABASE_URL: pg.url, HOOKSYNC_JWKS_URL: fixture.jwks.url };
      const [a, b] = await Promise.all([spawnServe(env), spawnServe(env)]);
      try {
        const deliveries = await signedDeliveries(30);
        const answers = await Promise.all(
          deliveries.flatMap((d) => [deliver(a!.url, d.text, d.token), deliver(b!.url, d.text, d.token)]),
        );
        expect(answers.every((x) => x.status === 200)).toBe(true);
        expect(answers.filter((x) => x.body.duplicate === false)).toHaveLength(30);
        const database = await openDatabase(pg.url);
        try {
          expect(await countJobs(database.db)).toBe(30);
        } finally {
          await database.close();
        }
      } finally {
        a!.child.kill('SIGTERM');
        b!.child.kill('SIGTERM');
        await Promise.all([a!.exited, b!.exited]);
        await pg.drop();
      }
    });
  });
});
