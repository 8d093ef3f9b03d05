/**
 * @module
 * Where the proxy keeps what must outlive one request: a small key-value interface with three
 * implementations (in memory, SQLite, Redis). Values are JSON text; the typed layer on top is
 * {@link ProxyState}.
 */

/** Options of one write. */
export interface ProxyStoreSetOptions {
  /** Forget the value after this many seconds (default: keep it). */
  ttlSeconds?: number;
}

/**
 * A key-value store shared by the requests of one proxy, or, for `redis`, by several proxies behind
 * a load balancer. Every method may reject (a Redis outage); the proxy then serves the request
 * without stored state.
 */
export interface ProxyStore {
  readonly kind: 'memory' | 'sqlite' | 'redis';
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, options?: ProxyStoreSetOptions): Promise<void>;
  delete(key: string): Promise<void>;
  /** Resolves once the store can serve (a Redis connection is up); rejects when it cannot. */
  ready?(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A store in process memory: state survives between requests and is gone with the process.
 *
 * @example
 * const proxy = await startProxy({ upstream, store: createMemoryProxyStore() });
 */
export function createMemoryProxyStore({ now = Date.now }: { now?: () => number } = {}): ProxyStore {
  const values = new Map<string, { value: string; expiresAt: number | undefined }>();
  return {
    kind: 'memory',
    async get(key) {
      const entry = values.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt !== undefined && entry.expiresAt <= now()) {
        values.delete(key);
        return undefined;
      }
      return entry.value;
    },
    async set(key, value, { ttlSeconds } = {}) {
      values.set(key, {
        value,
        expiresAt: ttlSeconds === undefined ? undefined : now() + ttlSeconds * 1_000,
      });
    },
    async delete(key) {
      values.delete(key);
    },
    async close() {
      values.clear();
    },
  };
}
