/**
 * @module
 * The SQLite proxy store: one key-value table in its own file, the default of `spillway serve`.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type Database from 'better-sqlite3';
import { SpillwayError } from '../core/index.js';
import { requireOptional } from '../optional/index.js';
import { defaultStorePath, retryBusy, retryBusyAsync, SQLITE_BUSY_TIMEOUT_MS } from '../store/index.js';
import { type ProxyStore, type ProxyStoreEntry, STORE_SWEEP_INTERVAL_MS } from './proxy-store.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS proxy_state (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  expires_at INTEGER
) WITHOUT ROWID;
`;

/** `proxy.db` beside the session store's file (`$XDG_DATA_HOME/spillway/`, or `SPILLWAY_STORE`'s folder). */
export function defaultProxyStorePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(dirname(defaultStorePath(env)), 'proxy.db');
}

/**
 * A proxy store on a SQLite file (better-sqlite3, WAL journal, so several proxy processes on one
 * machine can share the file). Every access is one statement; a lock another process holds is
 * waited for (`busy_timeout`), then retried with a pause that does not block other requests.
 * Expired rows are skipped on read, and swept on open and every `sweepIntervalMs` after. Rows read
 * or written are kept in memory while no other connection commits (`PRAGMA data_version`), so a
 * request's reads cost one statement once the rows it needs are known (see {@link SqliteRowCache}).
 *
 * @example
 * const store = createSqliteProxyStore({ path: '/var/lib/spillway/proxy.db' });
 */
export function createSqliteProxyStore({
  path = defaultProxyStorePath(),
  now = Date.now,
  sweepIntervalMs = STORE_SWEEP_INTERVAL_MS,
}: {
  path?: string;
  now?: () => number;
  /** How often expired rows are deleted, in milliseconds (0: on open only). */
  sweepIntervalMs?: number;
} = {}): ProxyStore {
  const Sqlite = requireOptional<typeof Database>({
    specifier: 'better-sqlite3',
    feature: 'the SQLite proxy store',
  });
  let db: Database.Database;
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const opened = new Sqlite(path, { timeout: SQLITE_BUSY_TIMEOUT_MS });
    db = opened;
    retryBusy(() => {
      opened.pragma('journal_mode = WAL');
      opened.pragma('synchronous = NORMAL');
      opened.exec(SCHEMA);
      opened.prepare('DELETE FROM proxy_state WHERE expires_at IS NOT NULL AND expires_at <= ?').run(now());
      // Keys of the first layout: limits per model for every client, kept without expiry.
      opened.prepare("DELETE FROM proxy_state WHERE key LIKE 'spillway:proxy:v1:%'").run();
    });
  } catch (error) {
    throw new SpillwayError(
      'invalid_config',
      `cannot open the proxy store at ${path}: ${(error as Error).message}; check the path and its permissions, or use --store memory`,
      { cause: error },
    );
  }
  const select = db.prepare<[string], { value: string; expires_at: number | null }>(
    'SELECT value, expires_at FROM proxy_state WHERE key = ?',
  );
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  const rows = new SqliteRowCache();
  /** The rows as this connection last saw them, forgotten when another connection has committed. */
  const current = (): SqliteRowCache => {
    rows.follow(dataVersion.get() as number);
    return rows;
  };
  const read = (cache: SqliteRowCache, key: string, at: number): string | undefined => {
    let row = cache.get(key);
    if (row === undefined) {
      const found = select.get(key);
      row = found === undefined ? ABSENT : { value: found.value, expiresAt: found.expires_at };
      cache.set(key, row);
    }
    return row.expiresAt === null || row.expiresAt > at ? row.value : undefined;
  };
  const upsert = db.prepare<[string, string, number | null]>(
    'INSERT INTO proxy_state (key, value, expires_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at',
  );
  const remove = db.prepare<[string]>('DELETE FROM proxy_state WHERE key = ?');
  // One commit for a batch of writes: in WAL mode each statement outside a transaction is a commit.
  const upsertAll = db.transaction((rows: readonly WrittenRow[]) => {
    for (const { key, value, expiresAt } of rows) upsert.run(key, value, expiresAt);
  });
  /** Writes rows (one commit), then keeps them as written (only once the commit went through). */
  const write = (entries: readonly ProxyStoreEntry[]): void => {
    const cache = current();
    const at = now();
    const rows = entries.map(
      ({ key, value, ttlSeconds }): WrittenRow => ({
        key,
        value,
        expiresAt: ttlSeconds === undefined ? null : at + ttlSeconds * 1_000,
      }),
    );
    if (rows.length === 1) {
      const { key, value, expiresAt } = rows[0] as WrittenRow;
      upsert.run(key, value, expiresAt);
    } else upsertAll(rows);
    for (const { key, value, expiresAt } of rows) cache.set(key, { value, expiresAt });
  };
  const expired = db.prepare<[number]>(
    'DELETE FROM proxy_state WHERE expires_at IS NOT NULL AND expires_at <= ?',
  );
  // A sweep that finds the file locked by another proxy is skipped: the next one, or theirs, does it.
  const sweep = () => retryBusyAsync(() => expired.run(now())).catch(() => undefined);
  const timer = sweepIntervalMs > 0 ? setInterval(() => void sweep(), sweepIntervalMs) : undefined;
  timer?.unref();
  return {
    kind: 'sqlite',
    // Reads return `retryBusyAsync`'s promise: a read that is not busy settles at once.
    get(key) {
      return retryBusyAsync(() => read(current(), key, now()));
    },
    getMany(keys) {
      return retryBusyAsync(() => {
        const cache = current();
        const at = now();
        return keys.map((key) => read(cache, key, at));
      });
    },
    async set(key, value, { ttlSeconds } = {}) {
      await retryBusyAsync(() =>
        write([{ key, value, ...(ttlSeconds === undefined ? {} : { ttlSeconds }) }]),
      );
    },
    async setMany(entries) {
      if (entries.length > 0) await retryBusyAsync(() => write(entries));
    },
    async delete(key) {
      await retryBusyAsync(() => {
        const cache = current();
        remove.run(key);
        cache.set(key, ABSENT);
      });
    },
    async close() {
      if (timer) clearInterval(timer);
      if (db.open) db.close();
    },
  };
}

/** A row as read: its value (none: no such row) and when it expires (`null`: never). */
interface CachedRow {
  value: string | undefined;
  expiresAt: number | null;
}

const ABSENT: CachedRow = { value: undefined, expiresAt: null };

/** A row as written. */
interface WrittenRow {
  key: string;
  value: string;
  expiresAt: number | null;
}

/**
 * Rows one connection has read or written, valid while no other connection commits: SQLite's
 * `PRAGMA data_version` changes when another connection (another proxy process, or another store on
 * the same file) has committed, and not for the connection's own commits, which are kept here as
 * they are written. A row is kept with its expiry, so an expired row still reads as none. Bounded
 * by {@link MAX_CACHED_ROWS} rows and {@link MAX_CACHED_CHARS} characters of values, oldest dropped
 * first.
 */
export class SqliteRowCache {
  readonly #rows = new Map<string, CachedRow>();
  #chars = 0;
  #version: number | undefined;

  /** Forgets every row when the data version is not the one the rows were read at. */
  follow(version: number): void {
    if (version === this.#version) return;
    this.#rows.clear();
    this.#chars = 0;
    this.#version = version;
  }

  get(key: string): CachedRow | undefined {
    return this.#rows.get(key);
  }

  set(key: string, row: CachedRow): void {
    this.#forget(key);
    const chars = key.length + (row.value?.length ?? 0);
    if (chars > MAX_CACHED_CHARS) return;
    this.#rows.set(key, row);
    this.#chars += chars;
    while (this.#rows.size > MAX_CACHED_ROWS || this.#chars > MAX_CACHED_CHARS) {
      const oldest = this.#rows.keys().next().value as string;
      this.#forget(oldest);
    }
  }

  get size(): number {
    return this.#rows.size;
  }

  #forget(key: string): void {
    const row = this.#rows.get(key);
    if (row === undefined) return;
    this.#rows.delete(key);
    this.#chars -= key.length + (row.value?.length ?? 0);
  }
}

/** At most this many rows are kept in memory per connection. */
export const MAX_CACHED_ROWS = 4_096;
/** At most this many characters of keys and values are kept in memory per connection (4 Mi). */
export const MAX_CACHED_CHARS = 4 * 1024 * 1024;
