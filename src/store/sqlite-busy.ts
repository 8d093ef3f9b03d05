/**
 * @module
 * Writing to a SQLite file other processes write to. Every write transaction starts with
 * `BEGIN IMMEDIATE`: it takes the write lock up front, waiting for it under `busy_timeout`, instead of
 * reading first and upgrading later, an upgrade SQLite refuses at once with `SQLITE_BUSY` (or
 * `SQLITE_BUSY_SNAPSHOT` in WAL mode) when another writer committed in between, whatever the
 * timeout ("Busy handler is not invoked" for that case: sqlite.org/c3ref/busy_handler.html). What is
 * still busy after the timeout is retried a few times with a growing, jittered pause.
 */

/**
 * What {@link writeTransaction} needs of a database: better-sqlite3's `transaction`, written out so
 * that the declarations of `spillway/store` do not name an optional package's types (a program
 * without better-sqlite3 installed type-checks against them too).
 */
export interface TransactionalDatabase {
  transaction<T>(work: () => T): { immediate(): T };
}

/** How long SQLite itself waits for a lock before failing a statement (`PRAGMA busy_timeout`). */
export const SQLITE_BUSY_TIMEOUT_MS = 5_000;

/** Retries after a busy failure, and the first pause (doubled each time, up to {@link MAX_BUSY_PAUSE_MS}). */
export const BUSY_RETRIES = 5;
const FIRST_BUSY_PAUSE_MS = 20;
const MAX_BUSY_PAUSE_MS = 500;

/** Whether an error is SQLite saying another connection holds the lock. */
export function isBusyError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

const pauseCell = new Int32Array(new SharedArrayBuffer(4));

/** Blocks this thread for `ms` (the session store's API is synchronous, as better-sqlite3 is). */
function pauseSync(ms: number): void {
  Atomics.wait(pauseCell, 0, 0, ms);
}

function pauseFor(attempt: number): number {
  const base = Math.min(FIRST_BUSY_PAUSE_MS * 2 ** attempt, MAX_BUSY_PAUSE_MS);
  return Math.round(base * (0.5 + Math.random() / 2));
}

/**
 * Runs `work`, again after a pause when SQLite answers busy, at most {@link BUSY_RETRIES} more times;
 * the last busy error is thrown as it came.
 *
 * @example
 * retryBusy(() => db.prepare('INSERT …').run(…));
 */
export function retryBusy<T>(work: () => T): T {
  for (let attempt = 0; ; attempt++) {
    try {
      return work();
    } catch (error) {
      if (!isBusyError(error) || attempt >= BUSY_RETRIES) throw error;
      pauseSync(pauseFor(attempt));
    }
  }
}

/**
 * {@link retryBusy} for callers that may wait without blocking (the proxy store). Work that is not
 * busy settles the promise at once: no async function around it, since most calls are.
 */
export function retryBusyAsync<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    if (!isBusyError(error)) return Promise.reject(error);
    return retryBusyLater(work, error);
  }
}

/** The retries of {@link retryBusyAsync} after a first busy failure, each after its pause. */
async function retryBusyLater<T>(work: () => T, first: unknown): Promise<T> {
  let last = first;
  for (let attempt = 0; attempt < BUSY_RETRIES; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, pauseFor(attempt)));
    try {
      return work();
    } catch (error) {
      if (!isBusyError(error)) throw error;
      last = error;
    }
  }
  throw last;
}

/**
 * Runs `work` in one `BEGIN IMMEDIATE` transaction, retried as a whole when the lock stays busy:
 * either all of it is committed or none of it.
 *
 * @example
 * const stored = writeTransaction(db, () => insertTurn(db, turn));
 */
export function writeTransaction<T>(db: TransactionalDatabase, work: () => T): T {
  return retryBusy(() => db.transaction(work).immediate());
}
