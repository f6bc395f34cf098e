/**
 * A small least-recently-used cache for records synthesised on demand (unknown domains, LinkedIn handles):
 * a long-running simulator must not grow without bound, and an evicted record is regenerated identically.
 */

/** Default number of entries kept. */
export const DEFAULT_CACHE_CAPACITY = 2000;

/** Map with a capacity: reading an entry refreshes it, inserting past the capacity drops the stalest. */
export class BoundedCache<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #capacity: number;

  constructor(capacity = DEFAULT_CACHE_CAPACITY) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new TypeError('BoundedCache: capacity must be ≥ 1');
    this.#capacity = capacity;
  }

  /** The value for `key`, computing and storing it with `create` when absent. */
  getOrCreate(key: K, create: () => V): V {
    const cached = this.#entries.get(key);
    if (cached !== undefined || this.#entries.has(key)) {
      this.#entries.delete(key);
      this.#entries.set(key, cached as V);
      return cached as V;
    }
    const value = create();
    this.#entries.set(key, value);
    if (this.#entries.size > this.#capacity) {
      const stalest = this.#entries.keys().next();
      if (stalest.done !== true) this.#entries.delete(stalest.value);
    }
    return value;
  }

  /** Number of entries held. */
  get size(): number {
    return this.#entries.size;
  }
}
