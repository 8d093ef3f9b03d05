import { SpillwayError } from '../core/index.js';
import { JsonSessionStore } from './json-session-store.js';
import type { SessionStore } from './session-store.js';
import { SqliteSessionStore } from './sqlite-session-store.js';

/** The JSON store's file for a SQLite path: `sessions.db` → `sessions.json`. */
export function jsonStorePath(path: string): string {
  return `${path.replace(/\.db$/, '')}.json`;
}

/** Options of {@link openSessionStore}. */
export interface OpenSessionStoreOptions {
  /** The SQLite file (`defaultStorePath()` for the embedded default). */
  path: string;
  /** Told when better-sqlite3 is not installed and the JSON store is used instead. */
  onFallback?: (fallback: { package: string; path: string; message: string }) => void;
}

/**
 * The SQLite session store at `path`, or, when better-sqlite3 (an optional peer) is not installed,
 * the JSON store beside it ({@link jsonStorePath}): what the command line opens, so that it works
 * from a fresh install.
 *
 * @example
 * const store = openSessionStore({ path: defaultStorePath(), onFallback: ({ message }) => console.warn(message) });
 */
export function openSessionStore({ path, onFallback }: OpenSessionStoreOptions): SessionStore {
  try {
    return new SqliteSessionStore(path);
  } catch (error) {
    if (!SpillwayError.isInstance(error) || error.code !== 'missing_dependency') throw error;
    const fallback = jsonStorePath(path);
    onFallback?.({
      package: String(error.data.package),
      path: fallback,
      message: `${error.message}; until then sessions are kept in ${fallback}, for one process at a time`,
    });
    return new JsonSessionStore(fallback);
  }
}
