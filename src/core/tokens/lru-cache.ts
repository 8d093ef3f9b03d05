/** Options of {@link LruCache}. */
export interface LruCacheOptions<K, V> {
  /** The most entries kept. */
  maxEntries: number;
  /** The most total weight kept (default: no bound beyond `maxEntries`). */
  maxWeight?: number;
  /** The weight of one entry (default 1), e.g. the length of a text key. */
  weigh?: (key: K, value: V) => number;
}

/**
 * A bounded map that forgets the least recently used entries first, by count and by weight. Counts
 * of long texts and of whole requests are kept in one, so that an agent loop re-sending the same
 * messages pays for each only once while memory stays bounded whatever the input.
 *
 * @example
 * const cache = new LruCache<string, number>({ maxEntries: 1_000, maxWeight: 1 << 24, weigh: (text) => text.length });
 * cache.set('some long text', 4);
 * cache.get('some long text'); // 4
 */
export class LruCache<K, V> {
  readonly #entries = new Map<K, { value: V; weight: number }>();
  readonly #maxEntries: number;
  readonly #maxWeight: number;
  readonly #weigh: (key: K, value: V) => number;
  #weight = 0;

  constructor({ maxEntries, maxWeight = Number.POSITIVE_INFINITY, weigh = () => 1 }: LruCacheOptions<K, V>) {
    if (!(maxEntries >= 1)) throw new RangeError(`maxEntries must be at least 1, got ${maxEntries}`);
    this.#maxEntries = maxEntries;
    this.#maxWeight = maxWeight;
    this.#weigh = weigh;
  }

  /** Entries held. */
  get size(): number {
    return this.#entries.size;
  }

  /** Total weight held. */
  get weight(): number {
    return this.#weight;
  }

  /** The value for `key`, now the most recently used; `undefined` when absent. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` for `key`, evicting the least recently used entries past the bounds. An entry
   * heavier than the whole bound is not kept. */
  set(key: K, value: V): void {
    const weight = this.#weigh(key, value);
    this.delete(key);
    if (weight > this.#maxWeight) return;
    this.#entries.set(key, { value, weight });
    this.#weight += weight;
    for (const [oldest, entry] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries && this.#weight <= this.#maxWeight) break;
      this.#entries.delete(oldest);
      this.#weight -= entry.weight;
    }
  }

  /** Forgets `key`. */
  delete(key: K): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#weight -= entry.weight;
  }

  /** Forgets everything. */
  clear(): void {
    this.#entries.clear();
    this.#weight = 0;
  }
}
