/**
 * The answer budget: concurrent calls never hold more answer bytes than the budget, waiters are served in
 * order, an abort gives up the place; and the client reads every answer inside it.
 */
import { describe, expect, it } from 'vitest';
import { AnswerBudget } from '../../../src/client/answer-budget.js';
import { createClient } from '../../../src/client/create-client.js';
import { ServiceError } from '../../../src/errors.js';
import { startStreamingUpstream } from '../../helpers/streaming-upstream.js';

const JOB_ID = '0b9c5f7e-1d2a-4c3b-8e4f-5a6b7c8d9e0f';
const MiB = 1024 * 1024;

describe('AnswerBudget', () => {
  it('serves in order, waits while full, and lets an aborted waiter go', async () => {
    const budget = new AnswerBudget(10);
    const first = await budget.acquire(6);
    const order: string[] = [];
    const second = budget.acquire(6).then((release) => {
      order.push('second');
      return release;
    });
    const aborted = new AbortController();
    const third = budget.acquire(1, aborted.signal);
    // The small one waits behind the larger one (in order), and leaves when aborted.
    aborted.abort(new Error('gone'));
    await expect(third).rejects.toThrow('gone');
    expect(order).toEqual([]);
    first();
    (await second)();
    expect(order).toEqual(['second']);
    expect(budget.inUse).toBe(0);
    expect(budget.peak).toBe(6);
    // Larger than the whole budget: goes alone once nothing else is held.
    const alone = await budget.acquire(25);
    alone();
    expect(() => new AnswerBudget(0)).toThrow(TypeError);
  });
});

describe('the client inside its answer budget', () => {
  it.each([true, false])(
    'eight concurrent 3 MiB answers never hold more than the 8 MiB budget (Content-Length: %s)',
    async (declareLength) => {
      const upstream = await startStreamingUpstream({
        hugeBytes: 3 * MiB,
        isHuge: () => true,
        declareLength,
      });
      try {
        const answers = new AnswerBudget(8 * MiB);
        const client = createClient({
          baseUrl: upstream.url,
          apiKey: 'k',
          answerBudget: answers,
          retries: 0,
          rateLimit: { perInterval: 1000, intervalSeconds: 1 },
        });
        const results = await Promise.allSettled(
          Array.from({ length: 8 }, () => client.jobChange.find(JOB_ID)),
        );
        // Spaces are not JSON: each answer is read whole, then refused as malformed.
        for (const r of results) {
          expect(r.status).toBe('rejected');
          expect((r as PromiseRejectedResult).reason).toBeInstanceOf(ServiceError);
          expect(((r as PromiseRejectedResult).reason as ServiceError).code).toBe('RESPONSE_MALFORMED');
        }
        expect(upstream.hugeAnswers()).toBe(8);
        expect(answers.peak).toBeLessThanOrEqual(8 * MiB);
        // Declared lengths reserve 3 MiB each (two at once); unknown lengths reserve the 4 MiB cap (two at once).
        expect(answers.peak).toBeGreaterThanOrEqual(6 * MiB);
        expect(answers.inUse).toBe(0);
      } finally {
        await upstream.close();
      }
    },
  );

  it('refuses a budget smaller than the answer cap', () => {
    expect(() =>
      createClient({
        baseUrl: 'http://127.0.0.1:2',
        apiKey: 'k',
        maxResponseBytes: 8 * MiB,
        answerBudgetBytes: MiB,
      }),
    ).toThrow(TypeError);
  });
});
