import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type Database from 'better-sqlite3';
import { type Message, SpillwayError } from '../core/index.js';
import { requireOptional } from '../optional/index.js';
import {
  holderAlive,
  parseSessionHolder,
  type SessionHolder,
  type SessionLockResult,
} from './session-lock.js';
import {
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
import { retryBusy, SQLITE_BUSY_TIMEOUT_MS, writeTransaction } from './sqlite-busy.js';

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY,
  title TEXT,
  model TEXT,
  meta TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  next_seq INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS messages (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  turn_id TEXT NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)
);
CREATE TABLE IF NOT EXISTS transcript (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  ord INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (session_id, ord)
);
CREATE TABLE IF NOT EXISTS compactions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  removed TEXT NOT NULL,
  info TEXT,
  created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS usage (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  turn_id TEXT NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER,
  model TEXT
);
CREATE TABLE IF NOT EXISTS state (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (session_id, key)
);
CREATE TABLE IF NOT EXISTS session_locks (
  session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  holder TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS scoped_learned_limits (
  scope TEXT NOT NULL,
  model TEXT NOT NULL,
  context_length INTEGER,
  output_cap INTEGER,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (scope, model)
);
`;

/** The embedded default database file: `$XDG_DATA_HOME/spillway/sessions.db`, else `~/.local/share/spillway/sessions.db`. */
export function defaultStorePath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SPILLWAY_STORE) return env.SPILLWAY_STORE;
  const base =
    env.XDG_DATA_HOME ||
    (process.platform === 'darwin'
      ? join(homedir(), 'Library', 'Application Support')
      : join(homedir(), '.local', 'share'));
  return join(base, 'spillway', 'sessions.db');
}

interface SessionRow {
  id: string;
  title: string | null;
  model: string | null;
  meta: string | null;
  created_at: string;
  updated_at: string;
  message_count: number;
}

/**
 * The SQLite session store (better-sqlite3, WAL journal). Each turn, compaction and rollback is one
 * `BEGIN IMMEDIATE` transaction (see `writeTransaction`), so several processes can write one file
 * at once: a process killed mid-write leaves the session as it was before the write or after it.
 * In WAL mode with `synchronous = NORMAL`, a committed transaction survives a crash of the process;
 * only a power loss can lose the last commits (never corrupt the file).
 *
 * @example
 * const store = new SqliteSessionStore(); // the default file under the user's data directory
 * const session = store.createSession({ model: 'gpt-4o' });
 */
export class SqliteSessionStore implements SessionStore {
  readonly path: string;
  readonly #db: Database.Database;
  readonly #now: () => string;

  constructor(
    path: string = defaultStorePath(),
    { now = () => new Date().toISOString() }: { now?: () => string } = {},
  ) {
    this.path = path;
    this.#now = now;
    const Sqlite = requireOptional<typeof Database>({
      specifier: 'better-sqlite3',
      feature: 'the SQLite session store',
    });
    try {
      if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
      const db = new Sqlite(path, { timeout: SQLITE_BUSY_TIMEOUT_MS });
      this.#db = db;
      // Another process may be creating the same file right now: its lock is waited for, then retried.
      retryBusy(() => {
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        db.pragma('foreign_keys = ON');
        db.exec(SCHEMA);
      });
    } catch (error) {
      throw new SpillwayError(
        'invalid_config',
        `cannot open the session store at ${path}: ${(error as Error).message}; check the path and its permissions, or set SPILLWAY_STORE`,
        { cause: error },
      );
    }
  }

  createSession({ id = randomUUID(), title, model, meta }: CreateSessionOptions = {}): SessionRecord {
    const now = this.#now();
    try {
      const insert = this.#db.prepare(
        'INSERT INTO sessions (id, title, model, meta, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
      );
      retryBusy(() =>
        insert.run(id, title ?? null, model ?? null, meta ? JSON.stringify(meta) : null, now, now),
      );
    } catch (error) {
      throw new SpillwayError(
        'invalid_argument',
        `cannot create session ${id}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    return this.getSession(id) as SessionRecord;
  }

  getSession(id: string): SessionRecord | undefined {
    const row = this.#db
      .prepare(
        'SELECT s.*, (SELECT COUNT(*) FROM transcript t WHERE t.session_id = s.id) AS message_count FROM sessions s WHERE s.id = ?',
      )
      .get(id) as SessionRow | undefined;
    return row ? toRecord(row) : undefined;
  }

  listSessions({ limit = 50 }: { limit?: number } = {}): SessionRecord[] {
    const rows = this.#db
      .prepare(
        'SELECT s.*, (SELECT COUNT(*) FROM transcript t WHERE t.session_id = s.id) AS message_count FROM sessions s ORDER BY s.updated_at DESC, s.rowid DESC LIMIT ?',
      )
      .all(limit) as SessionRow[];
    return rows.map(toRecord);
  }

  deleteSession(id: string): void {
    const remove = this.#db.prepare('DELETE FROM sessions WHERE id = ?');
    retryBusy(() => remove.run(id));
  }

  liveMessages(sessionId: string): StoredMessage[] {
    this.#require(sessionId);
    const rows = this.#db
      .prepare(
        'SELECT m.seq, m.turn_id, m.body FROM transcript t JOIN messages m ON m.session_id = t.session_id AND m.seq = t.seq WHERE t.session_id = ? ORDER BY t.ord',
      )
      .all(sessionId) as Array<{ seq: number; turn_id: string; body: string }>;
    return rows.map(toStored);
  }

  appendTurn(sessionId: string, turn: TurnWrite): StoredMessage[] {
    return writeTransaction(this.#db, () => {
      this.#require(sessionId);
      const stored = this.#insertMessages(sessionId, turn.turnId, turn.messages);
      const last = this.#db
        .prepare('SELECT COALESCE(MAX(ord), 0) AS ord FROM transcript WHERE session_id = ?')
        .get(sessionId) as { ord: number };
      const insert = this.#db.prepare('INSERT INTO transcript (session_id, ord, seq) VALUES (?, ?, ?)');
      stored.forEach((message, index) => {
        insert.run(sessionId, last.ord + index + 1, message.seq);
      });
      const usage = this.#db.prepare(
        'INSERT INTO usage (session_id, turn_id, prompt_tokens, completion_tokens, model) VALUES (?, ?, ?, ?, ?)',
      );
      for (const record of turn.usage ?? [])
        usage.run(
          sessionId,
          turn.turnId,
          record.promptTokens,
          record.completionTokens ?? null,
          record.model ?? null,
        );
      this.#saveState(sessionId, turn.state);
      this.#touch(sessionId);
      return stored;
    });
  }

  applyCompaction(sessionId: string, compaction: CompactionWrite): CompactionRecord {
    return writeTransaction(this.#db, () => {
      const before = this.liveMessages(sessionId);
      const bySeq = new Map(before.map((message) => [message.seq, message]));
      const fresh = compaction.transcript
        .filter((item): item is { message: Message } => 'message' in item)
        .map((item) => item.message);
      const inserted = this.#insertMessages(sessionId, compaction.turnId, fresh);
      let next = 0;
      const order: number[] = compaction.transcript.map((item) => {
        if ('message' in item) return (inserted[next++] as StoredMessage).seq;
        if (!bySeq.has(item.seq))
          throw new SpillwayError(
            'invalid_argument',
            `compaction keeps message ${item.seq}, which is not in the live transcript of session ${sessionId}`,
          );
        return item.seq;
      });
      const kept = new Set(order);
      const removed = before.filter((message) => !kept.has(message.seq));
      this.#db.prepare('DELETE FROM transcript WHERE session_id = ?').run(sessionId);
      const insert = this.#db.prepare('INSERT INTO transcript (session_id, ord, seq) VALUES (?, ?, ?)');
      order.forEach((seq, index) => {
        insert.run(sessionId, index + 1, seq);
      });
      const now = this.#now();
      const result = this.#db
        .prepare(
          'INSERT INTO compactions (session_id, kind, removed, info, created_at) VALUES (?, ?, ?, ?, ?)',
        )
        .run(
          sessionId,
          compaction.kind,
          JSON.stringify(removed.map((message) => message.seq)),
          compaction.info ? JSON.stringify(compaction.info) : null,
          now,
        );
      this.#touch(sessionId);
      const record: CompactionRecord = {
        id: Number(result.lastInsertRowid),
        kind: compaction.kind,
        createdAt: now,
        removed,
      };
      if (compaction.info) record.info = compaction.info;
      return record;
    });
  }

  compactions(sessionId: string): CompactionRecord[] {
    const rows = this.#db
      .prepare('SELECT * FROM compactions WHERE session_id = ? ORDER BY id')
      .all(sessionId) as Array<{
      id: number;
      kind: string;
      removed: string;
      info: string | null;
      created_at: string;
    }>;
    const message = this.#db.prepare(
      'SELECT seq, turn_id, body FROM messages WHERE session_id = ? AND seq = ?',
    );
    return rows.map((row) => {
      const removed = (JSON.parse(row.removed) as number[]).map((seq) =>
        toStored(message.get(sessionId, seq) as { seq: number; turn_id: string; body: string }),
      );
      const record: CompactionRecord = { id: row.id, kind: row.kind, createdAt: row.created_at, removed };
      if (row.info) record.info = JSON.parse(row.info) as Record<string, unknown>;
      return record;
    });
  }

  rollbackTurn(sessionId: string, turnId: string): number {
    return writeTransaction(this.#db, () => {
      this.#require(sessionId);
      const result = this.#db
        .prepare(
          'DELETE FROM transcript WHERE session_id = ? AND seq IN (SELECT seq FROM messages WHERE session_id = ? AND turn_id = ?)',
        )
        .run(sessionId, sessionId, turnId);
      this.#renumber(sessionId);
      this.#touch(sessionId);
      return result.changes;
    });
  }

  usage(sessionId: string): UsageRecord[] {
    const rows = this.#db
      .prepare('SELECT prompt_tokens, completion_tokens, model FROM usage WHERE session_id = ? ORDER BY id')
      .all(sessionId) as Array<{
      prompt_tokens: number;
      completion_tokens: number | null;
      model: string | null;
    }>;
    return rows.map((row) => {
      const record: UsageRecord = { promptTokens: row.prompt_tokens };
      if (row.completion_tokens !== null) record.completionTokens = row.completion_tokens;
      if (row.model !== null) record.model = row.model;
      return record;
    });
  }

  loadState(sessionId: string): Record<string, unknown> {
    const rows = this.#db
      .prepare('SELECT key, value FROM state WHERE session_id = ?')
      .all(sessionId) as Array<{ key: string; value: string }>;
    return Object.fromEntries(rows.map((row) => [row.key, JSON.parse(row.value)]));
  }

  learnedLimits({
    scope,
  }: {
    scope?: string;
  } = {}): Record<string, { contextLength?: number; outputCap?: number }> {
    const cutoff = new Date(Date.parse(this.#now()) - LEARNED_LIMIT_TTL_MS).toISOString();
    // Oldest first, so the newest of several servers wins when no scope is given.
    const rows = (
      scope === undefined
        ? this.#db
            .prepare(
              'SELECT model, context_length, output_cap FROM scoped_learned_limits WHERE updated_at > ? ORDER BY updated_at',
            )
            .all(cutoff)
        : this.#db
            .prepare(
              'SELECT model, context_length, output_cap FROM scoped_learned_limits WHERE scope = ? AND updated_at > ? ORDER BY updated_at',
            )
            .all(scope, cutoff)
    ) as Array<{ model: string; context_length: number | null; output_cap: number | null }>;
    const limits: Record<string, { contextLength?: number; outputCap?: number }> = {};
    for (const row of rows)
      limits[row.model] = {
        ...limits[row.model],
        ...(row.context_length !== null ? { contextLength: row.context_length } : {}),
        ...(row.output_cap !== null ? { outputCap: row.output_cap } : {}),
      };
    return limits;
  }

  saveLearnedLimit(
    model: string,
    { contextLength, outputCap }: { contextLength?: number; outputCap?: number },
    { scope = '' }: { scope?: string } = {},
  ): void {
    const upsert = this.#db.prepare(
      'INSERT INTO scoped_learned_limits (scope, model, context_length, output_cap, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(scope, model) DO UPDATE SET context_length = COALESCE(excluded.context_length, context_length), output_cap = COALESCE(excluded.output_cap, output_cap), updated_at = excluded.updated_at',
    );
    retryBusy(() => upsert.run(scope, model, contextLength ?? null, outputCap ?? null, this.#now()));
  }

  lockSession(sessionId: string, holder: SessionHolder): SessionLockResult {
    // One BEGIN IMMEDIATE transaction: two processes taking the same session cannot both win.
    return writeTransaction(this.#db, () => {
      this.#require(sessionId);
      const row = this.#db.prepare('SELECT holder FROM session_locks WHERE session_id = ?').get(sessionId) as
        | { holder: string }
        | undefined;
      const current = row === undefined ? undefined : parseSessionHolder(safeJson(row.holder));
      if (current !== undefined && current.token !== holder.token && holderAlive(current))
        return { ok: false, holder: current };
      this.#db
        .prepare(
          'INSERT INTO session_locks (session_id, holder) VALUES (?, ?) ON CONFLICT(session_id) DO UPDATE SET holder = excluded.holder',
        )
        .run(sessionId, JSON.stringify(holder));
      return { ok: true };
    });
  }

  unlockSession(sessionId: string, token: string): void {
    const remove = this.#db.prepare(
      "DELETE FROM session_locks WHERE session_id = ? AND json_extract(holder, '$.token') = ?",
    );
    retryBusy(() => remove.run(sessionId, token));
  }

  close(): void {
    this.#db.close();
  }

  #require(sessionId: string): void {
    if (!this.#db.prepare('SELECT 1 FROM sessions WHERE id = ?').get(sessionId)) {
      throw new SpillwayError(
        'invalid_argument',
        `no session ${sessionId} in ${this.path}; list sessions to find its id`,
      );
    }
  }

  #insertMessages(sessionId: string, turnId: string, messages: Message[]): StoredMessage[] {
    const { next_seq: first } = this.#db
      .prepare('SELECT next_seq FROM sessions WHERE id = ?')
      .get(sessionId) as { next_seq: number };
    const insert = this.#db.prepare(
      'INSERT INTO messages (session_id, seq, turn_id, body) VALUES (?, ?, ?, ?)',
    );
    const stored = messages.map((message, index) => {
      insert.run(sessionId, first + index, turnId, JSON.stringify(message));
      return { seq: first + index, turnId, message };
    });
    this.#db.prepare('UPDATE sessions SET next_seq = ? WHERE id = ?').run(first + messages.length, sessionId);
    return stored;
  }

  #renumber(sessionId: string): void {
    const seqs = (
      this.#db
        .prepare('SELECT seq FROM transcript WHERE session_id = ? ORDER BY ord')
        .all(sessionId) as Array<{ seq: number }>
    ).map((row) => row.seq);
    this.#db.prepare('DELETE FROM transcript WHERE session_id = ?').run(sessionId);
    const insert = this.#db.prepare('INSERT INTO transcript (session_id, ord, seq) VALUES (?, ?, ?)');
    seqs.forEach((seq, index) => {
      insert.run(sessionId, index + 1, seq);
    });
  }

  #saveState(sessionId: string, state: Record<string, unknown> | undefined): void {
    if (!state) return;
    const upsert = this.#db.prepare(
      'INSERT INTO state (session_id, key, value) VALUES (?, ?, ?) ON CONFLICT(session_id, key) DO UPDATE SET value = excluded.value',
    );
    for (const [key, value] of Object.entries(state)) upsert.run(sessionId, key, JSON.stringify(value));
  }

  #touch(sessionId: string): void {
    this.#db.prepare('UPDATE sessions SET updated_at = ? WHERE id = ?').run(this.#now(), sessionId);
  }
}

function toRecord(row: SessionRow): SessionRecord {
  const record: SessionRecord = {
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    messageCount: row.message_count,
  };
  if (row.title !== null) record.title = row.title;
  if (row.model !== null) record.model = row.model;
  if (row.meta !== null) record.meta = JSON.parse(row.meta) as Record<string, unknown>;
  return record;
}

function toStored(row: { seq: number; turn_id: string; body: string }): StoredMessage {
  return { seq: row.seq, turnId: row.turn_id, message: JSON.parse(row.body) as Message };
}
