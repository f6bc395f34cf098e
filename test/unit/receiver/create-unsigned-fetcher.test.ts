import { describe, expect, it } from 'vitest';
import { createUnsignedFetcher, type FinderFetch } from '../../../src/receiver/create-unsigned-fetcher.js';
import type { DeliveryAnswer } from '../../../src/receiver/delivery-answer.js';

const JOB = '5b0c7a8e-1f2d-4c3b-9a8e-7d6c5b4a3f21';
const envelope = (jobId: string) => ({
  input: { task: { job_id: jobId } },
  output: { job_change_status: 'moved' },
});
const stored: DeliveryAnswer = { status: 200, body: { stored: true }, outcome: 'fetched' };

function fetcherWith(
  finder: FinderFetch,
  options: { expected?: boolean; waitMs?: number; perMinute?: number } = {},
) {
  const commits: string[] = [];
  const fetcher = createUnsignedFetcher({
    fetchFromFinder: finder,
    isExpected: async () => options.expected ?? true,
    isStored: async () => false,
    commit: async (raw) => {
      commits.push(raw);
      return stored;
    },
    now: () => 0,
    waitMs: options.waitMs ?? 1000,
    unknownPerMinute: options.perMinute ?? 5,
  });
  return { fetcher, commits };
}

describe('createUnsignedFetcher', () => {
  it('fetches a job once for concurrent callbacks, answers 500 past the short wait, stores in the background', async () => {
    let calls = 0;
    let release: () => void = () => {};
    const finder: FinderFetch = async (_kind, jobId) => {
      calls++;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return { raw: JSON.stringify(envelope(jobId)), job: envelope(jobId) };
    };
    const { fetcher, commits } = fetcherWith(finder, { waitMs: 30 });
    const answers = await Promise.all([fetcher.fetch('job_change', JOB), fetcher.fetch('job_change', JOB)]);
    expect(answers.map((a) => [a.status, a.reason])).toEqual([
      [500, 'FINDER_PENDING'],
      [500, 'FINDER_PENDING'],
    ]);
    expect(calls).toBe(1);
    release();
    await fetcher.close(1000);
    expect(commits).toHaveLength(1);
  });

  it('stores nothing when the finder answers another job than the one claimed', async () => {
    const other = '00000000-0000-4000-8000-000000000000';
    const { fetcher, commits } = fetcherWith(async () => ({ raw: '{}', job: envelope(other) }));
    const answer = await fetcher.fetch('job_change', JOB);
    expect(answer).toMatchObject({ status: 401, reason: 'FINDER_REFUSED' });
    expect(commits).toEqual([]);
  });

  it('spends a small budget on ids the ledger does not expect, then answers 429', async () => {
    let calls = 0;
    const finder: FinderFetch = async (_kind, jobId) => {
      calls++;
      return { raw: '{}', job: envelope(jobId) };
    };
    const { fetcher } = fetcherWith(finder, { expected: false, perMinute: 2 });
    const ids = ['a', 'b', 'c', 'd'].map((c) => `5b0c7a8e-1f2d-4c3b-9a8e-7d6c5b4a3f2${c}`);
    const answers = [];
    for (const id of ids) answers.push(await fetcher.fetch('job_change', id));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429, 429]);
    expect(answers[2]).toMatchObject({ reason: 'UNSIGNED_FETCH_BUDGET', retryAfterSeconds: 60 });
    expect(calls).toBe(2);
  });

  it('lets close() return within its grace period while a fetch hangs', async () => {
    const { fetcher } = fetcherWith(() => new Promise(() => {}), { waitMs: 10 });
    await fetcher.fetch('job_change', JOB);
    const started = performance.now();
    await fetcher.close(100);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await fetcher.fetch('job_change', JOB)).toMatchObject({ status: 500, reason: 'SHUTTING_DOWN' });
  });
});
