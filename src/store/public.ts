/**
 * @module
 * `spillway/store`: session stores for an agent loop — SQLite (real transactions, several processes),
 * a JSON file (one process), memory — and the step that writes a compacted history back.
 *
 * @example
 * import { openSessionStore } from 'spillway/store';
 * const store = await openSessionStore({ path: 'sessions.db' });
 */
export {
  createMemorySessionStore,
  defaultStorePath,
  JsonSessionStore,
  openSessionStore,
  type SessionStore,
  SqliteSessionStore,
  syncSessionStore,
} from './index.js';
