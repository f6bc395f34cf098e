import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createSeededRandom,
  hashSeedParts,
  hashToUnit,
  pickWeighted,
} from '../../../../src/simulator/data/seeded-random.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('SeededRandom', () => {
  it('repeats the same sequence for the same key and another for another key', () => {
    const draw = (...parts: (string | number)[]) => {
      const random = createSeededRandom(...parts);
      return Array.from({ length: 20 }, () => random.uint32());
    };
    expect(draw('seed', 1)).toEqual(draw('seed', 1));
    expect(draw('seed', 1)).not.toEqual(draw('seed', 2));
    expect(draw('seed', 1)).not.toEqual(draw('seed', '1'));
  });

  it('keeps parts apart: ["ab", "c"] is not ["a", "bc"]', () => {
    expect(hashSeedParts(['ab', 'c'])).not.toEqual(hashSeedParts(['a', 'bc']));
    expect(hashSeedParts([''])).not.toEqual(hashSeedParts([]));
  });

  it('pins its first outputs, so a change of algorithm (and of every world) cannot pass unnoticed', () => {
    const random = createSeededRandom('hooksync');
    expect([random.uint32(), random.uint32(), random.uint32()]).toEqual([2807290949, 3640802674, 454976252]);
    expect(createSeededRandom('hooksync').uuid()).toBe('a753dc45-d902-4d72-9b1e-62fcba27d08b');
  });

  it('stays in range: next in [0, 1), int within bounds, pick from the list, uuids of version 4', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: -1000, max: 1000 }), fc.nat(1000), (seed, min, span) => {
        const random = createSeededRandom(seed);
        const u = random.next();
        expect(u >= 0 && u < 1).toBe(true);
        const n = random.int(min, min + span);
        expect(n >= min && n <= min + span && Number.isInteger(n)).toBe(true);
        expect(['a', 'b', 'c']).toContain(random.pick(['a', 'b', 'c']));
        expect(random.uuid()).toMatch(UUID_V4);
        expect(random.hex(11)).toMatch(/^[0-9a-f]{11}$/);
      }),
      { seed: 42, numRuns: 200 },
    );
  });

  it('spreads draws evenly (each tenth of [0, 1) gets 10 % ± 1.5 % of 20 000 draws)', () => {
    const random = createSeededRandom('uniformity');
    const buckets = new Array<number>(10).fill(0);
    for (let i = 0; i < 20_000; i += 1) buckets[Math.floor(random.next() * 10)]! += 1;
    for (const count of buckets) expect(Math.abs(count - 2000)).toBeLessThan(300);
  });

  it('samples distinct items', () => {
    const random = createSeededRandom('sample');
    const taken = random.sample([1, 2, 3, 4, 5, 6], 4);
    expect(new Set(taken).size).toBe(4);
    expect(random.sample([1, 2], 5).sort()).toEqual([1, 2]);
  });

  it('refuses misuse with TypeError', () => {
    const random = createSeededRandom('misuse');
    expect(() => random.int(3, 2)).toThrow(TypeError);
    expect(() => random.int(0.5, 2)).toThrow(TypeError);
    expect(() => random.pick([])).toThrow(TypeError);
    expect(() => pickWeighted([], 0.5)).toThrow(TypeError);
    expect(() => pickWeighted([['a', 0]], 0.5)).toThrow(TypeError);
  });
});

describe('pickWeighted and hashToUnit', () => {
  it('lays weights end to end', () => {
    const entries = [
      ['a', 1],
      ['b', 3],
    ] as const;
    expect(pickWeighted(entries, 0)).toBe('a');
    expect(pickWeighted(entries, 0.249)).toBe('a');
    expect(pickWeighted(entries, 0.25)).toBe('b');
    expect(pickWeighted(entries, 0.999)).toBe('b');
  });

  it('maps a key to a fixed unit value', () => {
    expect(hashToUnit('x', 1)).toBe(hashToUnit('x', 1));
    expect(hashToUnit('x', 1)).not.toBe(hashToUnit('x', 2));
    const u = hashToUnit('anything');
    expect(u >= 0 && u < 1).toBe(true);
  });
});
