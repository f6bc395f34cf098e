import { describe, expect, it } from 'vitest';
import { chunksOf, mapInParallel } from '../../../../src/destinations/crm/in-chunks.js';

describe('chunksOf', () => {
  it('cuts items into runs of the size, the last one shorter', () => {
    expect(chunksOf([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunksOf([], 3)).toEqual([]);
  });
});

describe('mapInParallel', () => {
  it('keeps at most `limit` calls in flight and answers in the items order', async () => {
    let inFlight = 0;
    let most = 0;
    const gates: Array<() => void> = [];
    const results = mapInParallel([1, 2, 3, 4, 5, 6, 7], 3, async (item) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise<void>((resolve) => gates.push(resolve));
      inFlight -= 1;
      return item * 10;
    });
    // Released in reverse order of arrival, each turn: the results still come back in the items' order.
    while (gates.length > 0 || inFlight > 0) {
      await new Promise((resolve) => setImmediate(resolve));
      gates
        .reverse()
        .splice(0)
        .forEach((open) => {
          open();
        });
    }
    expect(await results).toEqual([10, 20, 30, 40, 50, 60, 70]);
    expect(most).toBe(3);
  });

  it('rejects with the first failure', async () => {
    await expect(
      mapInParallel([1, 2], 2, async (item) => {
        if (item === 2) throw new Error('two');
        return item;
      }),
    ).rejects.toThrow('two');
  });
});
