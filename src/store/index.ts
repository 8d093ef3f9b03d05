/**
 * @module
 * The session store: SQLite (the embedded default, under the user's data directory) or in memory;
 * a JSON file when better-sqlite3, an optional peer, is not installed.
 */
export { JsonSessionStore } from './json-session-store.js';
export { createMemorySessionStore } from './memory-session-store.js';
export { jsonStorePath, type OpenSessionStoreOptions, openSessionStore } from './open-session-store.js';
export {
  holderAlive,
  parseSessionHolder,
  type SessionHolder,
  type SessionLockResult,
  sessionHolder,
  sessionInUse,
} from './session-lock.js';
export {
  type CompactionRecord,
  type CompactionWrite,
  type CreateSessionOptions,
  LEARNED_LIMIT_TTL_MS,
  type SessionRecord,
  type SessionStore,
  type StoredMessage,
  type TurnWrite,
  type UsageRecord,
} from './session-store.js';
export { type SessionStoreHooks, sessionStoreHooks } from './session-store-hooks.js';
export {
  BUSY_RETRIES,
  isBusyError,
  retryBusy,
  retryBusyAsync,
  SQLITE_BUSY_TIMEOUT_MS,
  type TransactionalDatabase,
  writeTransaction,
} from './sqlite-busy.js';
export { defaultStorePath, SqliteSessionStore } from './sqlite-session-store.js';
export { syncSessionStore } from './sync-session-store.js';
