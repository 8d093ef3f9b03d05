/**
 * @module
 * Discovery results cached per server and per model, misses included, in a bounded
 * least-recently-used map: an unreachable server is asked once per lifetime rather than on every
 * request, concurrent lookups share one probe run, and clients naming ever new models cannot grow it
 * without bound.
 */
import type { DiscoveryOutcome, ProbeOutcome } from './discovery-outcome.js';

/** How long a discovery result is reused: a server restarted with another `n_ctx` is seen within a minute. */
export const DEFAULT_DISCOVERY_TTL_MS = 60_000;

/**
 * The most entries (servers and models together) a cache keeps; the least recently used go first.
 * A proxy serves one upstream with a handful of models: 1,024 is far above what honest clients name.
 */
export const DEFAULT_DISCOVERY_MAX_ENTRIES = 1_024;

/** Options of a {@link DiscoveryCache}. */
export interface DiscoveryCacheOptions {
  /** How long a result is reused, in milliseconds (default {@link DEFAULT_DISCOVERY_TTL_MS}). */
  ttlMs?: number;
  /** The most entries kept (default {@link DEFAULT_DISCOVERY_MAX_ENTRIES}). */
  maxEntries?: number;
  /** The clock, in milliseconds (default `Date.now`). */
  now?: () => number;
}

interface Slot {
  at: number;
  result: Promise<unknown>;
}

/**
 * A cache of discovery results keyed by base URL, then model, plus what each server's
 * model-independent endpoints answered (see `discoverLimits`). Concurrent lookups of the same key
 * share one probe run; misses are cached like hits.
 *
 * @example
 * const cache = new DiscoveryCache({ ttlMs: 10_000, maxEntries: 256 });
 * await discoverLimits({ baseUrl, model, cache });
 */
export class DiscoveryCache {
  readonly #slots = new Map<string, Slot>();
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  #generation = 0;

  constructor({
    ttlMs = DEFAULT_DISCOVERY_TTL_MS,
    maxEntries = DEFAULT_DISCOVERY_MAX_ENTRIES,
    now = Date.now,
  }: DiscoveryCacheOptions = {}) {
    this.#ttlMs = ttlMs;
    this.#maxEntries = Math.max(2, maxEntries);
    this.#now = now;
  }

  /**
   * Counts every change of what the cache holds (a result loaded, one forgotten or evicted): a
   * caller that keeps what it derived from the cache knows it is still what the cache would give
   * while this is unchanged (and no entry it used has expired).
   */
  get generation(): number {
    return this.#generation;
  }

  /** The time on the cache's clock, in milliseconds (what its entries' ages are measured with). */
  clock(): number {
    return this.#now();
  }

  /** How many entries the cache holds (servers and models). */
  get size(): number {
    return this.#slots.size;
  }

  #lookup<T>(key: string, load: () => Promise<T>): Promise<T> {
    const now = this.#now();
    const slot = this.#slots.get(key);
    this.#slots.delete(key);
    if (slot && now - slot.at < this.#ttlMs) {
      this.#slots.set(key, slot);
      return slot.result as Promise<T>;
    }
    const result = load();
    this.#generation++;
    this.#slots.set(key, { at: now, result });
    for (const oldest of this.#slots.keys()) {
      if (this.#slots.size <= this.#maxEntries) break;
      this.#slots.delete(oldest);
    }
    return result;
  }

  /** The cached result for a server and model, running `load` when there is none or it expired. */
  get(
    baseUrl: string,
    model: string | undefined,
    load: () => Promise<DiscoveryOutcome>,
  ): Promise<DiscoveryOutcome> {
    return this.#lookup(`model\n${baseUrl}\n${model ?? ''}`, load);
  }

  /** The cached answer to the zero-cost probe of a server and model (see `probeLimits`). */
  probe(baseUrl: string, model: string, load: () => Promise<ProbeOutcome>): Promise<ProbeOutcome> {
    return this.#lookup(`probe\n${baseUrl}\n${model}`, load);
  }

  /** What a server's model-independent endpoints answered, loaded once per server and lifetime. */
  server<T>(baseUrl: string, load: () => Promise<T>): Promise<T> {
    return this.#lookup(`server\n${baseUrl}`, load);
  }

  /** Forgets one model of one server (a run the caller aborted proves nothing about the server). */
  forget(baseUrl: string, model: string | undefined, { probe = false }: { probe?: boolean } = {}): void {
    this.#generation++;
    this.#slots.delete(`${probe ? 'probe' : 'model'}\n${baseUrl}\n${model ?? ''}`);
  }

  /** Forgets one server and its models, or everything. */
  clear(baseUrl?: string): void {
    this.#generation++;
    if (baseUrl === undefined) {
      this.#slots.clear();
      return;
    }
    for (const key of [...this.#slots.keys()])
      if (
        key === `server\n${baseUrl}` ||
        key.startsWith(`model\n${baseUrl}\n`) ||
        key.startsWith(`probe\n${baseUrl}\n`)
      )
        this.#slots.delete(key);
  }
}

/** The cache {@link discoverLimits} uses when it is given none. */
export const defaultDiscoveryCache = new DiscoveryCache();
