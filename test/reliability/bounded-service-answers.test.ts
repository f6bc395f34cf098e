/**
 * Service answers are bounded in memory, not only in bytes (issue 28 part 3), measured on the built CLI in
 * a child process with a small heap (--max-old-space-size=64): eight concurrent answers just under the
 * 4 MiB cap are launched and stored (their bytes share one answer budget); eight concurrent 63 MiB answers
 * (under the old 64 MiB cap, which killed `launch reveal` with "Reached heap limit") are refused unread,
 * their rows left `uncertain`, and a re-run reports them instead of paying again.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withMigratedDatabase } from '../../src/storage/open-migrated-database.js';
import { ensureBuilt } from '../helpers/ensure-built.js';
import { startLargeRevealUpstream } from '../helpers/large-reveal-upstream.js';
import { type ProcessRun, runNode } from '../helpers/run-process.js';
import { startStreamingUpstream } from '../helpers/streaming-upstream.js';

const HEAP_MB = 64;
const ROWS = 16;
const MiB = 1024 * 1024;

/** `hooksync launch reveal` under a small heap, eight at a time. */
function launchUnderHeap(cli: string, env: Record<string, string>, file: string): Promise<ProcessRun> {
  return runNode(
    [
      `--max-old-space-size=${HEAP_MB}`,
      cli,
      'launch',
      'reveal',
      '--from',
      file,
      '--json',
      '--concurrency',
      '8',
    ],
    { env: { ...process.env, ...env, HOOKSYNC_LOG_LEVEL: 'error' } },
  );
}

describe(`concurrent large service answers under a ${HEAP_MB} MB heap`, () => {
  let cli: string;
  let dir: string;
  let file: string;
  beforeAll(async () => {
    cli = ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), 'hooksync-bounded-answers-'));
    file = join(dir, 'visitors.csv');
    const lines = ['ip'];
    for (let i = 1; i <= ROWS; i += 1) lines.push(`203.0.113.${i}`);
    await writeFile(file, lines.join('\n'));
  }, 120_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('answers just under the 4 MiB cap, eight at once, are all launched and stored', async () => {
    // 9,000 funding rounds of ~430 bytes: a valid reveal of about 3.8 MiB, made of many objects, within the
    // shape bounds every answer is read under (contract/answer-shape.ts: 10,000 items an array, 50,000 in all).
    const upstream = await startLargeRevealUpstream(9_000, 310);
    try {
      expect(upstream.answerBytes).toBeGreaterThan(3.5 * MiB);
      expect(upstream.answerBytes).toBeLessThan(4 * MiB);
      const run = await launchUnderHeap(
        cli,
        {
          HOOKSYNC_API_BASE_URL: upstream.url,
          HOOKSYNC_API_KEY: 'k',
          HOOKSYNC_DATABASE_URL: join(dir, 'under-cap.db'),
        },
        file,
      );
      expect(run.stderr).not.toContain('heap limit');
      expect(run.code, run.stderr.slice(0, 500)).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ launched: ROWS, stored: ROWS, failed: 0 });
      expect(upstream.answers()).toBe(ROWS);
    } finally {
      await upstream.close();
    }
  }, 120_000);

  it('63 MiB answers are refused unread; the rows are left uncertain and a re-run does not pay for them again', async () => {
    const upstream = await startStreamingUpstream({
      hugeBytes: 63 * MiB,
      isHuge: () => true,
      declareLength: true,
    });
    const database = join(dir, 'huge.db');
    const env = {
      HOOKSYNC_API_BASE_URL: upstream.url,
      HOOKSYNC_API_KEY: 'k',
      HOOKSYNC_DATABASE_URL: database,
    };
    try {
      const run = await launchUnderHeap(cli, env, file);
      expect(run.stderr).not.toContain('heap limit');
      expect(run.signal).toBeNull();
      expect(run.code).toBe(1);
      const report = JSON.parse(run.stdout) as {
        launched: number;
        failed: number;
        errors: { message: string }[];
      };
      expect(report.launched).toBe(0);
      expect(report.failed).toBe(ROWS);
      expect(report.errors[0]?.message).toContain('RESPONSE_TOO_LARGE');
      // Refused on their Content-Length: almost nothing of the 16 × 63 MiB was downloaded.
      expect(upstream.bytesSent()).toBeLessThan(ROWS * 4 * MiB);
      const states = await withMigratedDatabase(database, async ({ db }) =>
        db.selectFrom('launch_rows').select('state').execute(),
      );
      // The service answered 200: it may have taken (and charged) each job, so none is `failed` or `sending`.
      expect(states.map((s) => s.state)).toEqual(Array(ROWS).fill('uncertain'));
      const before = upstream.hugeAnswers();
      const rerun = await launchUnderHeap(cli, env, file);
      expect(JSON.parse(rerun.stdout)).toMatchObject({ launched: 0, unresolved: ROWS, relaunched: 0 });
      expect(upstream.hugeAnswers()).toBe(before);
    } finally {
      await upstream.close();
    }
  }, 120_000);
});
