/**
 * The simulator's deterministic randomness: a string hash that expands a key into 128 bits, and the sfc32
 * generator over it. Never Math.random: the same key always gives the same sequence, on every platform.
 */

/** One part of a key: the world's seed, a namespace, an index, an IP... joined unambiguously. */
export type SeedPart = string | number;

/** Per-lane FNV-style offsets and odd multipliers, so the four lanes of a hash are independent. */
const LANE_OFFSETS = [0x811c9dc5, 0x9e3779b9, 0x85ebca6b, 0xc2b2ae35] as const;
const LANE_PRIMES = [0x01000193, 0x2c1b3c6d, 0x297a2d39, 0x7feb352d] as const;
/** Parts are joined with a separator that cannot occur in a part's text form. */
const PART_SEPARATOR = '\u0000';

/** Murmur3's 32-bit finaliser: every input bit affects every output bit. */
function avalanche(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The text a key hashes: the part count, then the parts joined with NUL (numbers marked, in decimal). */
function keyText(parts: readonly SeedPart[]): string {
  const texts = parts.map((part) => (typeof part === 'number' ? `#${String(part)}` : part));
  return [String(parts.length), ...texts].join(PART_SEPARATOR);
}

/** Four 32-bit words derived from `parts` (a 128-bit hash, not cryptographic). */
export function hashSeedParts(parts: readonly SeedPart[]): [number, number, number, number] {
  const text = keyText(parts);
  let l0: number = LANE_OFFSETS[0];
  let l1: number = LANE_OFFSETS[1];
  let l2: number = LANE_OFFSETS[2];
  let l3: number = LANE_OFFSETS[3];
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    l0 = Math.imul(l0 ^ code, LANE_PRIMES[0]);
    l1 = Math.imul(l1 ^ code, LANE_PRIMES[1]);
    l2 = Math.imul(l2 ^ code, LANE_PRIMES[2]);
    l3 = Math.imul(l3 ^ code, LANE_PRIMES[3]);
  }
  // Fold the length in, then cross-mix the lanes so that a short key still fills all 128 bits.
  const length = text.length;
  const a = avalanche(l0 ^ length);
  const b = avalanche(l1 ^ a);
  const c = avalanche(l2 ^ b);
  const d = avalanche(l3 ^ c);
  return [avalanche(a ^ d), b, c, d];
}

/** A number in [0, 1) fixed by `parts`: for one-off decisions (an IP's reveal kind, a job change status). */
export function hashToUnit(...parts: SeedPart[]): number {
  return hashSeedParts(parts)[0] / 0x1_0000_0000;
}

/** An item and its relative weight, for {@link SeededRandom.weighted}. */
export type Weighted<T> = readonly [item: T, weight: number];

/** sfc32 (Chris Doty-Humphrey's Small Fast Counting generator): 128 bits of state, period at least 2^32. */
export class SeededRandom {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(parts: readonly SeedPart[]) {
    [this.#a, this.#b, this.#c, this.#d] = hashSeedParts(parts);
    // Warm-up rounds so that nearby keys do not start with correlated outputs.
    for (let i = 0; i < 12; i += 1) this.uint32();
  }

  /** The next 32-bit unsigned integer. */
  uint32(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return t >>> 0;
  }

  /** A number in [0, 1). */
  next(): number {
    return this.uint32() / 0x1_0000_0000;
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    if (!Number.isInteger(min) || !Number.isInteger(max) || max < min) {
      throw new TypeError(`SeededRandom.int: bad range [${min}, ${max}]`);
    }
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One item of a non-empty list, uniformly. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new TypeError('SeededRandom.pick: empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** One item by relative weight (weights need not sum to 1). */
  weighted<T>(entries: readonly Weighted<T>[]): T {
    return pickWeighted(entries, this.next());
  }

  /** `count` distinct items of `items` (all of them when count ≥ length), in the order drawn. */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = [...items];
    const taken: T[] = [];
    while (taken.length < count && pool.length > 0) {
      const index = Math.floor(this.next() * pool.length);
      taken.push(pool[index]!);
      pool.splice(index, 1);
    }
    return taken;
  }

  /** A UUID with the version 4 layout (RFC 9562 section 5.4) whose random bits come from this generator. */
  uuid(): string {
    const hex = (word: number) => (word >>> 0).toString(16).padStart(8, '0');
    const a = hex(this.uint32());
    // Version nibble 4 (high nibble of byte 6) and variant bits 10 (top of byte 8).
    const b = hex((this.uint32() & 0xffff0fff) | 0x4000);
    const c = hex((this.uint32() & 0x3fffffff) | 0x80000000);
    const d = hex(this.uint32());
    return `${a}-${b.slice(0, 4)}-${b.slice(4)}-${c.slice(0, 4)}-${c.slice(4)}${d}`;
  }

  /** Lower-case hex digits, `length` of them. */
  hex(length: number): string {
    let text = '';
    while (text.length < length) text += this.uint32().toString(16).padStart(8, '0');
    return text.slice(0, length);
  }
}

/** A generator for the key `parts` (e.g. `[seed, 'company', 17]`). */
export function createSeededRandom(...parts: SeedPart[]): SeededRandom {
  return new SeededRandom(parts);
}

/** The entry that a unit value `u` in [0, 1) lands on when the weights are laid end to end. */
export function pickWeighted<T>(entries: readonly Weighted<T>[], u: number): T {
  const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
  if (entries.length === 0 || !(total > 0)) throw new TypeError('pickWeighted: no positive weight');
  let threshold = u * total;
  for (const [item, weight] of entries) {
    if (threshold < weight) return item;
    threshold -= weight;
  }
  return entries[entries.length - 1]![0];
}
