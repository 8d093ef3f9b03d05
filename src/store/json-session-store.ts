import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { type Message, SpillwayError } from '../core/index.js';
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

/** The lock file of a session: beside the store, one file per session, created exclusively. */
function lockFileOf(path: string, sessionId: string): string {
  return `${path}.locks/${encodeURIComponent(sessionId)}.json`;
}

function readHolder(file: string): SessionHolder | undefined {
  try {
    return parseSessionHolder(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return undefined;
  }
}

interface StoredSession {
  record: Omit<SessionRecord, 'messageCount'>;
  nextSeq: number;
  messages: StoredMessage[];
  /** The live transcript: seqs in order. */
  transcript: number[];
  compactions: Array<{
    id: number;
    kind: string;
    createdAt: string;
    removed: number[];
    info?: Record<string, unknown>;
  }>;
  usage: UsageRecord[];
  state: Record<string, unknown>;
}

interface StoreFile {
  sessions: StoredSession[];
  /** By scope and model (`scope` + newline + `model`), with when each was learned. */
  learnedLimits: Record<
    string,
    { contextLength?: number; outputCap?: number; scope?: string; model?: string; updatedAt?: string }
  >;
  nextCompactionId: number;
}

const EMPTY: StoreFile = { sessions: [], learnedLimits: {}, nextCompactionId: 1 };

function readStoreFile(path: string): StoreFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return structuredClone(EMPTY);
    throw new SpillwayError(
      'invalid_config',
      `cannot read the session store at ${path}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  try {
    return JSON.parse(text) as StoreFile;
  } catch (error) {
    throw new SpillwayError(
      'invalid_config',
      `the session store at ${path} is not valid JSON; move it away to start a new one`,
      { cause: error },
    );
  }
}

/**
 * The session store without SQLite: the whole store held in memory and, unless the path is
 * `:memory:`, written to a JSON file after every write (a new file renamed over the old one, so a
 * killed process leaves it before or after the write). The command line uses it when better-sqlite3
 * is not installed. One process at a time: two processes writing one file lose each other's
 * writes (the SQLite store is the one for that). Behaves as {@link SqliteSessionStore} otherwise.
 *
 * @example
 * const store = new JsonSessionStore('/tmp/sessions.json');
 * const session = store.createSession({ model: 'gpt-4o' });
 */
export class JsonSessionStore implements SessionStore {
  readonly path: string;
  readonly #now: () => string;
  readonly #data: StoreFile;
  /** Locks of a `:memory:` store (a file store keeps them in lock files, seen by every process). */
  readonly #locks = new Map<string, SessionHolder>();

  constructor(path: string, { now = () => new Date().toISOString() }: { now?: () => string } = {}) {
    this.path = path;
    this.#now = now;
    this.#data = path === ':memory:' ? structuredClone(EMPTY) : readStoreFile(path);
  }

  createSession({ id = randomUUID(), title, model, meta }: CreateSessionOptions = {}): SessionRecord {
    if (this.#find(id)) throw new SpillwayError('invalid_argument', `cannot create session ${id}: it exists`);
    const now = this.#now();
    const record = {
      id,
      createdAt: now,
      updatedAt: now,
      ...(title === undefined ? {} : { title }),
      ...(model === undefined ? {} : { model }),
      ...(meta === undefined ? {} : { meta: structuredClone(meta) }),
    };
    this.#data.sessions.push({
      record,
      nextSeq: 1,
      messages: [],
      transcript: [],
      compactions: [],
      usage: [],
      state: {},
    });
    this.#write();
    return this.getSession(id) as SessionRecord;
  }

  getSession(id: string): SessionRecord | undefined {
    const session = this.#find(id);
    return session
      ? { ...structuredClone(session.record), messageCount: session.transcript.length }
      : undefined;
  }

  listSessions({ limit = 50 }: { limit?: number } = {}): SessionRecord[] {
    // Newest first; among equal times the later created first, as the SQLite store's rowid order.
    return this.#data.sessions
      .map((session, index) => ({ session, index }))
      .sort((a, b) =>
        a.session.record.updatedAt < b.session.record.updatedAt
          ? 1
          : a.session.record.updatedAt > b.session.record.updatedAt
            ? -1
            : b.index - a.index,
      )
      .slice(0, limit)
      .map(({ session }) => this.getSession(session.record.id) as SessionRecord);
  }

  deleteSession(id: string): void {
    this.#data.sessions = this.#data.sessions.filter((session) => session.record.id !== id);
    this.#locks.delete(id);
    if (this.path !== ':memory:') rmSync(lockFileOf(this.path, id), { force: true });
    this.#write();
  }

  liveMessages(sessionId: string): StoredMessage[] {
    const session = this.#require(sessionId);
    const bySeq = new Map(session.messages.map((message) => [message.seq, message]));
    return structuredClone(session.transcript.map((seq) => bySeq.get(seq) as StoredMessage));
  }

  appendTurn(sessionId: string, turn: TurnWrite): StoredMessage[] {
    const session = this.#require(sessionId);
    const stored = this.#insert(session, turn.turnId, turn.messages);
    session.transcript.push(...stored.map((message) => message.seq));
    session.usage.push(...structuredClone(turn.usage ?? []));
    Object.assign(session.state, structuredClone(turn.state ?? {}));
    session.record.updatedAt = this.#now();
    this.#write();
    return structuredClone(stored);
  }

  applyCompaction(sessionId: string, compaction: CompactionWrite): CompactionRecord {
    const session = this.#require(sessionId);
    const live = new Set(session.transcript);
    for (const item of compaction.transcript)
      if ('seq' in item && !live.has(item.seq))
        throw new SpillwayError(
          'invalid_argument',
          `compaction keeps message ${item.seq}, which is not in the live transcript of session ${sessionId}`,
        );
    const before = this.liveMessages(sessionId);
    const fresh = compaction.transcript.filter((item): item is { message: Message } => 'message' in item);
    const inserted = this.#insert(
      session,
      compaction.turnId,
      fresh.map((item) => item.message),
    );
    let next = 0;
    session.transcript = compaction.transcript.map((item) =>
      'seq' in item ? item.seq : (inserted[next++] as StoredMessage).seq,
    );
    const kept = new Set(session.transcript);
    const removed = before.filter((message) => !kept.has(message.seq));
    const now = this.#now();
    const id = this.#data.nextCompactionId++;
    const entry = {
      id,
      kind: compaction.kind,
      createdAt: now,
      removed: removed.map((message) => message.seq),
    };
    session.compactions.push(compaction.info ? { ...entry, info: structuredClone(compaction.info) } : entry);
    session.record.updatedAt = now;
    this.#write();
    const record: CompactionRecord = { id, kind: compaction.kind, createdAt: now, removed };
    if (compaction.info) record.info = compaction.info;
    return record;
  }

  compactions(sessionId: string): CompactionRecord[] {
    const session = this.#find(sessionId);
    if (!session) return [];
    const bySeq = new Map(session.messages.map((message) => [message.seq, message]));
    return structuredClone(
      session.compactions.map((entry) => ({
        ...entry,
        removed: entry.removed.map((seq) => bySeq.get(seq) as StoredMessage),
      })),
    );
  }

  rollbackTurn(sessionId: string, turnId: string): number {
    const session = this.#require(sessionId);
    const own = new Set(
      session.messages.filter((message) => message.turnId === turnId).map((message) => message.seq),
    );
    const before = session.transcript.length;
    session.transcript = session.transcript.filter((seq) => !own.has(seq));
    session.record.updatedAt = this.#now();
    this.#write();
    return before - session.transcript.length;
  }

  usage(sessionId: string): UsageRecord[] {
    return structuredClone(this.#find(sessionId)?.usage ?? []);
  }

  loadState(sessionId: string): Record<string, unknown> {
    return structuredClone(this.#find(sessionId)?.state ?? {});
  }

  learnedLimits({
    scope,
  }: {
    scope?: string;
  } = {}): Record<string, { contextLength?: number; outputCap?: number }> {
    const cutoff = new Date(Date.parse(this.#now()) - LEARNED_LIMIT_TTL_MS).toISOString();
    const entries = Object.values(this.#data.learnedLimits)
      .filter(
        (entry) =>
          entry.model !== undefined &&
          entry.updatedAt !== undefined &&
          entry.updatedAt > cutoff &&
          (scope === undefined || entry.scope === scope),
      )
      .sort((left, right) => ((left.updatedAt ?? '') < (right.updatedAt ?? '') ? -1 : 1));
    const limits: Record<string, { contextLength?: number; outputCap?: number }> = {};
    for (const { model, contextLength, outputCap } of entries)
      limits[model as string] = {
        ...limits[model as string],
        ...(contextLength === undefined ? {} : { contextLength }),
        ...(outputCap === undefined ? {} : { outputCap }),
      };
    return limits;
  }

  saveLearnedLimit(
    model: string,
    { contextLength, outputCap }: { contextLength?: number; outputCap?: number },
    { scope = '' }: { scope?: string } = {},
  ): void {
    const key = `${scope}\n${model}`;
    const known = this.#data.learnedLimits[key] ?? {};
    this.#data.learnedLimits[key] = {
      ...known,
      scope,
      model,
      ...(contextLength === undefined ? {} : { contextLength }),
      ...(outputCap === undefined ? {} : { outputCap }),
      updatedAt: this.#now(),
    };
    this.#write();
  }

  close(): void {}

  #find(sessionId: string): StoredSession | undefined {
    return this.#data.sessions.find((session) => session.record.id === sessionId);
  }

  #require(sessionId: string): StoredSession {
    const session = this.#find(sessionId);
    if (!session)
      throw new SpillwayError(
        'invalid_argument',
        `no session ${sessionId} in ${this.path}; list sessions to find its id`,
      );
    return session;
  }

  #insert(session: StoredSession, turnId: string, messages: Message[]): StoredMessage[] {
    const stored = messages.map((message, index) => ({
      seq: session.nextSeq + index,
      turnId,
      message: structuredClone(message),
    }));
    session.nextSeq += messages.length;
    session.messages.push(...stored);
    return stored;
  }

  lockSession(sessionId: string, holder: SessionHolder): SessionLockResult {
    this.#require(sessionId);
    if (this.path === ':memory:') {
      const current = this.#locks.get(sessionId);
      if (current !== undefined && current.token !== holder.token) return { ok: false, holder: current };
      this.#locks.set(sessionId, holder);
      return { ok: true };
    }
    const file = lockFileOf(this.path, sessionId);
    mkdirSync(dirname(file), { recursive: true });
    // Created exclusively: of two processes, one creates it; a holder that ended is replaced once.
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        writeFileSync(file, JSON.stringify(holder), { flag: 'wx' });
        return { ok: true };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const current = readHolder(file);
      if (current?.token === holder.token) return { ok: true };
      if (current !== undefined && holderAlive(current)) return { ok: false, holder: current };
      rmSync(file, { force: true });
    }
    const current = readHolder(file);
    return current === undefined ? { ok: true } : { ok: false, holder: current };
  }

  unlockSession(sessionId: string, token: string): void {
    if (this.path === ':memory:') {
      if (this.#locks.get(sessionId)?.token === token) this.#locks.delete(sessionId);
      return;
    }
    const file = lockFileOf(this.path, sessionId);
    if (readHolder(file)?.token === token) rmSync(file, { force: true });
  }

  #write(): void {
    if (this.path === ':memory:') return;
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      const temporary = `${this.path}.${process.pid}.tmp`;
      writeFileSync(temporary, JSON.stringify(this.#data));
      renameSync(temporary, this.path);
    } catch (error) {
      throw new SpillwayError(
        'invalid_config',
        `cannot write the session store at ${this.path}: ${(error as Error).message}; check the path and its permissions, or set SPILLWAY_STORE`,
        { cause: error },
      );
    }
  }
}
