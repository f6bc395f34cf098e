/**
 * The built executable runs `serve` in its bounded thread (cli/bounded-thread.ts): it answers and stops on
 * SIGTERM as it did in one thread; and a thread that stops without an exit code (out of its heap, or an
 * uncaught error) ends the process with exit 1 and one line saying why, after what the thread wrote.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { getJob } from '../../../src/storage/job-queries.js';
import { openDatabase } from '../../../src/storage/open-database.js';
import { ensureBuilt } from '../../helpers/ensure-built.js';
import { envelopeText } from '../../helpers/envelope-texts.js';
import { deliver } from '../../helpers/receiver-harness.js';
import { runNode } from '../../helpers/run-process.js';
import { spawnServe, useServeFixture } from '../../helpers/spawn-serve.js';
import { signDelivery } from '../../helpers/webhook-signer.js';

const fixture = useServeFixture('hooksync-bounded-thread-');
const helpers = join(dirname(fileURLToPath(import.meta.url)), '../../helpers/bounded-thread');

/** Runs a stand-in thread through the built thread runner; resolves its exit code and output. */
function runStandIn(worker: string, oldGenerationMb: number, env: Record<string, string> = {}) {
  const dist = dirname(dirname(ensureBuilt()));
  return runNode([join(helpers, 'run-thread.mjs'), dist, join(helpers, worker), String(oldGenerationMb)], {
    env: { PATH: process.env.PATH ?? '', ...env },
  });
}

describe('the bounded thread of the built CLI', () => {
  it('serves in its thread under a ceiling: answers a delivery, then drains on SIGTERM and exits 0', async () => {
    const databaseUrl = join(fixture.dir, 'serve.db');
    const serve = await spawnServe({
      HOOKSYNC_DATABASE_URL: databaseUrl,
      HOOKSYNC_JWKS_URL: fixture.jwks.url,
      HOOKSYNC_MEMORY_MB: '256',
    });
    const { text, jobId } = envelopeText('search-contact');
    const token = await signDelivery(text, { key: fixture.key, iat: Math.floor(Date.now() / 1000), jobId });
    const answer = await deliver(serve.url, text, token);
    expect(answer.status).toBe(200);
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
    expect(serve.stderr()).toContain('"signal":"SIGTERM"');
    expect(serve.stderr()).toMatch(/"msg":"closed"/);
    expect(serve.stderr()).not.toContain('thread stopped');
    const database = await openDatabase(databaseUrl);
    try {
      expect(await getJob(database.db, jobId)).toBeDefined();
    } finally {
      await database.close();
    }
  }, 60_000);

  it('refuses a bad ceiling in the thread’s own words, exit 2', async () => {
    const { code, stderr } = await runNode([ensureBuilt(), 'serve'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOOKSYNC_MEMORY_MB: 'lots',
        HOOKSYNC_DATABASE_URL: join(fixture.dir, 'bad.db'),
      },
    });
    expect(code).toBe(2);
    expect(stderr).toBe(
      'hooksync: HOOKSYNC_MEMORY_MB must be a whole number of MiB (got "lots") (CONFIG_INVALID)\n',
    );
  }, 60_000);

  it('exits 1 naming HOOKSYNC_MEMORY_MB when the thread runs out of its heap', async () => {
    const result = await runStandIn('fills-heap.mjs', 16, { HOOKSYNC_MEMORY_MB: '256' });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('filling the heap\n');
    expect(result.stderr).toBe(
      'hooksync: serve ran out of memory (its heap of 16 MB, sized by HOOKSYNC_MEMORY_MB: 256): ' +
        "raise HOOKSYNC_MEMORY_MB (and the container's memory with it)\n",
    );
  }, 60_000);

  it('prints the stopped line, exit 1, when the thread dies of an uncaught error', async () => {
    const result = await runStandIn('throws.mjs', 64);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('about to fail\n');
    expect(result.stderr).toBe('hooksync: the serve thread stopped: a failure nobody caught\n');
  }, 60_000);
});
