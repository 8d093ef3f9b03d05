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

/** One write of a batch ({@link ProxyStore.setMany}). */
export interface ProxyStoreEntry extends ProxyStoreSetOptions {
  key: string;
  value: string;
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
  /**
   * The values of several keys, in their order, in one round trip (a request reads the model's and
   * the conversation's state together). Without it, each is a `get`.
   */
  getMany?(keys: readonly string[]): Promise<Array<string | undefined>>;
  /**
   * Writes several entries in one round trip and, where the store has them, one commit. Without it,
   * each is a `set`.
   */
  setMany?(entries: readonly ProxyStoreEntry[]): Promise<void>;
  /** Resolves once the store can serve (a Redis connection is up); rejects when it cannot. */
  ready?(): Promise<void>;
  close(): Promise<void>;
}

/** The most characters of keys and values the memory store holds (least recently used go first). */
export const DEFAULT_MEMORY_STORE_MAX_CHARS = 16 * 1024 * 1024;

/** The most entries the memory store holds. */
export const DEFAULT_MEMORY_STORE_MAX_ENTRIES = 20_000;

/** How often the memory and SQLite stores drop expired entries nobody read again. */
export const STORE_SWEEP_INTERVAL_MS = 60_000;

/** What one entry costs besides its characters (the map slot, the record, two string headers). */
const ENTRY_OVERHEAD_CHARS = 64;

/** Options of {@link createMemoryProxyStore}. */
export interface MemoryProxyStoreOptions {
  now?: () => number;
  /** The most characters of keys and values kept (default {@link DEFAULT_MEMORY_STORE_MAX_CHARS}). */
  maxChars?: number;
  /** The most entries kept (default {@link DEFAULT_MEMORY_STORE_MAX_ENTRIES}). */
  maxEntries?: number;
  /** How often expired entries are swept, in milliseconds (0: only when read). */
  sweepIntervalMs?: number;
}

/** The memory store, with what it holds (for tests and metrics). */
export interface MemoryProxyStore extends ProxyStore {
  readonly kind: 'memory';
  /** Entries held now, expired ones not yet swept included. */
  readonly size: number;
  /** Characters of keys and values held now, with each entry's overhead. */
  readonly chars: number;
  /** Drops every expired entry now (the periodic sweep calls it). */
  sweep(): number;
}

/**
 * A store in process memory: state survives between requests and is gone with the process. It is
 * bounded: at most `maxEntries` entries and `maxChars` characters, the least recently used dropped
 * first, and expired entries swept every `sweepIntervalMs` whether or not anyone reads them again,
 * so clients naming ever new conversations and models cannot grow the process without end.
 *
 * @example
 * const proxy = await startProxy({ upstream, store: createMemoryProxyStore({ maxChars: 8 * 1024 * 1024 }) });
 */
export function createMemoryProxyStore({
  now = Date.now,
  maxChars = DEFAULT_MEMORY_STORE_MAX_CHARS,
  maxEntries = DEFAULT_MEMORY_STORE_MAX_ENTRIES,
  sweepIntervalMs = STORE_SWEEP_INTERVAL_MS,
}: MemoryProxyStoreOptions = {}): MemoryProxyStore {
  // A Map iterates in insertion order: a read moves its entry to the end, so the first is the least
  // recently used.
  const values = new Map<string, { value: string; expiresAt: number | undefined }>();
  let chars = 0;
  const cost = (key: string, value: string) => key.length + value.length + ENTRY_OVERHEAD_CHARS;
  const remove = (key: string): void => {
    const entry = values.get(key);
    if (!entry) return;
    values.delete(key);
    chars -= cost(key, entry.value);
  };
  const sweep = (): number => {
    const at = now();
    let swept = 0;
    for (const [key, entry] of values)
      if (entry.expiresAt !== undefined && entry.expiresAt <= at) {
        remove(key);
        swept++;
      }
    return swept;
  };
  const read = (key: string): string | undefined => {
    const entry = values.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt !== undefined && entry.expiresAt <= now()) {
      remove(key);
      return undefined;
    }
    values.delete(key);
    values.set(key, entry);
    return entry.value;
  };
  const write = (key: string, value: string, ttlSeconds: number | undefined): void => {
    remove(key);
    if (cost(key, value) > maxChars) return;
    values.set(key, {
      value,
      expiresAt: ttlSeconds === undefined ? undefined : now() + ttlSeconds * 1_000,
    });
    chars += cost(key, value);
    for (const oldest of values.keys()) {
      if (chars <= maxChars && values.size <= maxEntries) break;
      remove(oldest);
    }
  };
  const timer = sweepIntervalMs > 0 ? setInterval(sweep, sweepIntervalMs) : undefined;
  timer?.unref();
  return {
    kind: 'memory',
    get size() {
      return values.size;
    },
    get chars() {
      return chars;
    },
    sweep,
    async get(key) {
      return read(key);
    },
    async getMany(keys) {
      return keys.map(read);
    },
    async set(key, value, { ttlSeconds } = {}) {
      write(key, value, ttlSeconds);
    },
    async setMany(entries) {
      for (const { key, value, ttlSeconds } of entries) write(key, value, ttlSeconds);
    },
    async delete(key) {
      remove(key);
    },
    async close() {
      if (timer) clearInterval(timer);
      values.clear();
      chars = 0;
    },
  };
}
