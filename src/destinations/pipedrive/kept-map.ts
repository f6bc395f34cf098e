/**
 * The one cache of the Pipedrive adapter (field lists, records read, organizations' names): a map of at
 * most `max` entries (when full, it starts again empty: a batch's worth many times over), each kept for
 * `ttlMs` at most when given.
 */
export class KeptMap<K, V> {
  readonly #entries = new Map<K, { readonly value: V; readonly at: number }>();
  readonly #max: number;
  readonly #ttlMs: number | undefined;
  readonly #now: () => number;

  constructor(options: { readonly max: number; readonly ttlMs?: number; readonly now?: () => number }) {
    this.#max = options.max;
    this.#ttlMs = options.ttlMs;
    this.#now = options.now ?? Date.now;
  }

  /** The value kept for `key`, unless it is older than `ttlMs`. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (this.#ttlMs !== undefined && this.#now() - entry.at >= this.#ttlMs) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: K, value: V): void {
    if (this.#entries.size >= this.#max && !this.#entries.has(key)) this.#entries.clear();
    this.#entries.set(key, { value, at: this.#now() });
  }

  delete(key: K): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }

  /** The values kept (expired ones included: a name compared, not served). */
  *values(): IterableIterator<V> {
    for (const entry of this.#entries.values()) yield entry.value;
  }
}
