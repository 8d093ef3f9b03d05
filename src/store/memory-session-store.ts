import { SqliteSessionStore } from './sqlite-session-store.js';

/**
 * A session store that lives in memory and is gone when closed: the same implementation as the file
 * store, on a private in-memory SQLite database, so both behave identically.
 *
 * @example
 * const store = createMemorySessionStore();
 */
export function createMemorySessionStore(options: { now?: () => string } = {}): SqliteSessionStore {
  return new SqliteSessionStore(':memory:', options);
}
