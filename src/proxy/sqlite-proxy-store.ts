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
 * Expired rows are skipped on read, and swept on open and every `sweepIntervalMs` after.
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
  const select = db.prepare<[string, number], { value: string }>(
    'SELECT value FROM proxy_state WHERE key = ? AND (expires_at IS NULL OR expires_at > ?)',
  );
  const upsert = db.prepare<[string, string, number | null]>(
    'INSERT INTO proxy_state (key, value, expires_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at',
  );
  const remove = db.prepare<[string]>('DELETE FROM proxy_state WHERE key = ?');
  // One commit for a batch of writes: in WAL mode each statement outside a transaction is a commit.
  const upsertAll = db.transaction((entries: readonly ProxyStoreEntry[]) => {
    const at = now();
    for (const { key, value, ttlSeconds } of entries)
      upsert.run(key, value, ttlSeconds === undefined ? null : at + ttlSeconds * 1_000);
  });
  const expired = db.prepare<[number]>(
    'DELETE FROM proxy_state WHERE expires_at IS NOT NULL AND expires_at <= ?',
  );
  // A sweep that finds the file locked by another proxy is skipped: the next one, or theirs, does it.
  const sweep = () => retryBusyAsync(() => expired.run(now())).catch(() => undefined);
  const timer = sweepIntervalMs > 0 ? setInterval(() => void sweep(), sweepIntervalMs) : undefined;
  timer?.unref();
  return {
    kind: 'sqlite',
    async get(key) {
      return (await retryBusyAsync(() => select.get(key, now())))?.value;
    },
    async getMany(keys) {
      return retryBusyAsync(() => {
        const at = now();
        return keys.map((key) => select.get(key, at)?.value);
      });
    },
    async set(key, value, { ttlSeconds } = {}) {
      await retryBusyAsync(() =>
        upsert.run(key, value, ttlSeconds === undefined ? null : now() + ttlSeconds * 1_000),
      );
    },
    async setMany(entries) {
      if (entries.length > 0) await retryBusyAsync(() => upsertAll(entries));
    },
    async delete(key) {
      await retryBusyAsync(() => remove.run(key));
    },
    async close() {
      if (timer) clearInterval(timer);
      if (db.open) db.close();
    },
  };
}
