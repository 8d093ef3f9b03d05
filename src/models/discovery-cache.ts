/**
 * @module
 * Discovery results cached per base URL (and model), misses included, so an unreachable server is
 * asked once per lifetime rather than on every request.
 */
import type { DiscoveredLimits } from './discovery-probes.js';

/** How long a discovery result is reused: a server restarted with another `n_ctx` is seen within a minute. */
export const DEFAULT_DISCOVERY_TTL_MS = 60_000;

/** Options of a {@link DiscoveryCache}. */
export interface DiscoveryCacheOptions {
  /** How long a result is reused, in milliseconds (default {@link DEFAULT_DISCOVERY_TTL_MS}). */
  ttlMs?: number;
  /** The clock, in milliseconds (default `Date.now`). */
  now?: () => number;
}

interface Slot {
  at: number;
  result: Promise<DiscoveredLimits | undefined>;
}

/**
 * A cache of discovery results keyed by base URL, then model. Concurrent lookups of the same key share
 * one probe run.
 *
 * @example
 * const cache = new DiscoveryCache({ ttlMs: 10_000 });
 * await discoverLimits({ baseUrl, model, cache });
 */
export class DiscoveryCache {
  readonly #servers = new Map<string, Map<string, Slot>>();
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor({ ttlMs = DEFAULT_DISCOVERY_TTL_MS, now = Date.now }: DiscoveryCacheOptions = {}) {
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  /** The cached result for a server and model, running `load` when there is none or it expired. */
  get(
    baseUrl: string,
    model: string | undefined,
    load: () => Promise<DiscoveredLimits | undefined>,
  ): Promise<DiscoveredLimits | undefined> {
    let models = this.#servers.get(baseUrl);
    if (!models) {
      models = new Map();
      this.#servers.set(baseUrl, models);
    }
    const key = model ?? '';
    const now = this.#now();
    const slot = models.get(key);
    if (slot && now - slot.at < this.#ttlMs) return slot.result;
    const result = load();
    models.set(key, { at: now, result });
    return result;
  }

  /** Forgets one model of one server (a run the caller aborted proves nothing about the server). */
  forget(baseUrl: string, model: string | undefined): void {
    this.#servers.get(baseUrl)?.delete(model ?? '');
  }

  /** Forgets one server, or everything. */
  clear(baseUrl?: string): void {
    if (baseUrl === undefined) this.#servers.clear();
    else this.#servers.delete(baseUrl);
  }
}

/** The cache {@link discoverLimits} uses when it is given none. */
export const defaultDiscoveryCache = new DiscoveryCache();
