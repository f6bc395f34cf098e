/** Issue 43 part 1: an answer's shape is checked in bounded work before zod looks at each element. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  answerShapeProblem,
  MAX_ANSWER_ITEMS_IN_ALL,
  parseAnswer,
} from '../../../src/contract/answer-shape.js';

const page = z.object({ results: z.array(z.object({ id: z.string() })), total: z.number().optional() });

describe('the answer shape check', () => {
  it('refuses an array past the bound at once, naming where', () => {
    const zeros = { results: new Array(4_000_000).fill(0) };
    const started = performance.now();
    expect(parseAnswer(page, zeros, 200)).toEqual({
      ok: false,
      problem: 'results: 4000000 items, more than the 200 read',
    });
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('refuses objects mixed with other values, and arrays past the bound in all', () => {
    expect(answerShapeProblem({ results: [{ id: 'a' }, 0, 0] })).toBe(
      'results: objects mixed with other values',
    );
    const nested = { results: Array.from({ length: 10 }, () => ({ to: new Array(6_000).fill(1) })) };
    expect(answerShapeProblem(nested)).toBe(
      `results: more than ${MAX_ANSWER_ITEMS_IN_ALL} items in all the arrays of one answer`,
    );
  });

  it('refuses an answer wrong everywhere from its sample, with one issue', () => {
    const wrong = { results: new Array(200).fill(0) };
    expect(parseAnswer(page, wrong, 200)).toEqual({
      ok: false,
      problem: 'results.0: Invalid input: expected object, received number',
    });
  });

  it('reads a good page, and still finds a bad element past the sample', () => {
    const good = { results: [{ id: 'a' }, { id: 'b' }, { id: 'c' }], total: 3 };
    expect(parseAnswer(page, good, 200)).toEqual({ ok: true, data: good });
    const late = { results: [{ id: 'a' }, { id: 'b' }, { id: 3 }] };
    expect(parseAnswer(page, late, 200)).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^results\.2\.id/),
    });
  });

  it('does not refuse what only the sample cut short (a minimum length)', () => {
    const atLeastThree = z.object({ keys: z.array(z.string()).min(3) });
    expect(parseAnswer(atLeastThree, { keys: ['a', 'b', 'c'] })).toMatchObject({ ok: true });
  });
});
