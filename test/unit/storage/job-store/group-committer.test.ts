import { describe, expect, it, vi } from 'vitest';
import { StorageError } from '../../../../src/errors.js';
import { GroupCommitter } from '../../../../src/storage/job-store/group-committer.js';

/** A batch runner that records each batch it is given and doubles numbers; `bad` items fail their batch. */
function recorder(options: { bad?: number[]; transient?: boolean } = {}) {
  const batches: number[][] = [];
  const run = async (items: readonly number[]) => {
    batches.push([...items]);
    await new Promise((resolve) => setTimeout(resolve, 2));
    if (items.some((i) => options.bad?.includes(i))) {
      throw Object.assign(new Error('bad item'), {
        code: options.transient ? 'SQLITE_BUSY' : 'SQLITE_CONSTRAINT',
      });
    }
    return items.map((i) => i * 2);
  };
  return { batches, run };
}

describe('GroupCommitter', () => {
  it('groups concurrent submissions into few batches, each result after its batch', async () => {
    const { batches, run } = recorder();
    const committer = new GroupCommitter(run, 64);
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => committer.submit(i)));
    expect(results).toEqual(Array.from({ length: 100 }, (_, i) => i * 2));
    expect(batches.map((b) => b.length)).toEqual([64, 36]);
    expect(committer.stats()).toMatchObject({ transactions: 2, committedItems: 100, largestBatch: 64 });
  });

  it('collects what arrives during a batch into the next one', async () => {
    const { batches, run } = recorder();
    const committer = new GroupCommitter(run, 64);
    const first = committer.submit(1);
    await new Promise((resolve) => setImmediate(resolve));
    const later = [committer.submit(2), committer.submit(3), committer.submit(4)];
    await Promise.all([first, ...later]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('retries a failed batch item by item, so one bad item fails alone', async () => {
    const { batches, run } = recorder({ bad: [3] });
    const committer = new GroupCommitter(run, 64);
    const settled = await Promise.allSettled([1, 2, 3, 4, 5].map((i) => committer.submit(i)));
    expect(settled.map((s) => s.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    const reason = (settled[2] as PromiseRejectedResult).reason;
    expect(reason).toBeInstanceOf(StorageError);
    expect(reason.transient).toBe(false);
    expect(batches).toEqual([[1, 2, 3, 4, 5], [1], [2], [3], [4], [5]]);
    expect(committer.stats()).toMatchObject({ failedBatches: 1, failedItems: 1, transactions: 4 });
  });

  it('stops retrying once the database itself is failing, answering transient at once', async () => {
    const { batches, run } = recorder({ bad: [1, 2, 3], transient: true });
    const committer = new GroupCommitter(run, 64);
    const settled = await Promise.allSettled([1, 2, 3].map((i) => committer.submit(i)));
    expect(settled.every((s) => s.status === 'rejected' && s.reason.transient === true)).toBe(true);
    expect(batches).toEqual([[1, 2, 3], [1]]);
  });

  it('idle() waits for everything submitted', async () => {
    const { run } = recorder();
    const committer = new GroupCommitter(run, 2);
    const done: number[] = [];
    for (let i = 0; i < 5; i += 1) void committer.submit(i).then((r) => done.push(r));
    await committer.idle();
    await Promise.resolve();
    expect(done).toHaveLength(5);
  });

  it('refuses a maxBatch that is not a positive integer', () => {
    const { run } = recorder();
    expect(() => new GroupCommitter(run, 0)).toThrow(TypeError);
    expect(() => new GroupCommitter(run, 1.5)).toThrow(TypeError);
  });

  describe('background work', () => {
    /** Background work that does `units` units, one per run, and records when each ran. */
    function units(count: number, maxDelayMs = 1000) {
      const ran: number[] = [];
      let left = count;
      return {
        ran,
        work: {
          maxDelayMs,
          retryMs: 5,
          async run() {
            ran.push(performance.now());
            left -= 1;
            return left > 0;
          },
        },
      };
    }

    it('runs when no batch waits, until it says nothing is left; idle() waits for it', async () => {
      const { run } = recorder();
      const committer = new GroupCommitter(run, 64);
      const { ran, work } = units(3);
      committer.setBackgroundWork(work);
      committer.wakeBackground();
      await committer.idle();
      expect(ran).toHaveLength(3);
    });

    it('gets a turn at least every maxDelayMs while batches keep coming', async () => {
      const { batches, run } = recorder();
      const committer = new GroupCommitter(run, 4);
      const { ran, work } = units(1_000, 20);
      committer.setBackgroundWork(work);
      // Batches without pause for 150 ms: the queue is never empty when a turn comes round.
      const until = performance.now() + 150;
      const submitting = (async () => {
        while (performance.now() < until) await Promise.all([1, 2, 3, 4, 5].map((i) => committer.submit(i)));
      })();
      committer.wakeBackground();
      await submitting;
      committer.stopBackground();
      await committer.idle();
      expect(batches.length).toBeGreaterThan(10);
      // At least one turn per 20 ms of a 150 ms burst (each turn waits for the batch in progress).
      expect(ran.length).toBeGreaterThanOrEqual(4);
    });

    it('reports a failed unit and tries again later; stopBackground() ends it', async () => {
      const { run } = recorder();
      const committer = new GroupCommitter(run, 64);
      const errors: unknown[] = [];
      let calls = 0;
      committer.setBackgroundWork({
        maxDelayMs: 1000,
        retryMs: 5,
        onError: (error) => errors.push(error),
        async run() {
          calls += 1;
          if (calls < 3) throw new Error('database busy');
          return false;
        },
      });
      committer.wakeBackground();
      await vi.waitFor(() => expect(calls).toBe(3), { timeout: 10_000, interval: 5 });
      await committer.idle();
      expect(calls).toBe(3);
      expect(errors).toHaveLength(2);
      committer.stopBackground();
      committer.wakeBackground();
      await committer.idle();
      expect(calls).toBe(3);
    });

    it('accepts its work once', () => {
      const committer = new GroupCommitter(recorder().run, 4);
      const { work } = units(1);
      committer.setBackgroundWork(work);
      expect(() => committer.setBackgroundWork(work)).toThrow(TypeError);
    });
  });
});
