/**
 * @module
 * The session store: sessions, their messages, compactions (with the compacted-away messages kept),
 * usage and per-session state. Messages are immutable records; a session's live transcript is an
 * ordered list of them, appended by turns and rewritten by compactions. Everything one turn writes
 * lands in one transaction.
 */
import type { Message } from '../core/index.js';
import type { SessionHolder, SessionLockResult } from './session-lock.js';

/**
 * How long a learned limit is believed, in milliseconds (24 hours): a memory of what a server said,
 * which a restart with another window makes wrong, not configuration.
 */
export const LEARNED_LIMIT_TTL_MS = 24 * 3_600 * 1_000;

/** One session. */
export interface SessionRecord {
  id: string;
  title?: string;
  model?: string;
  createdAt: string;
  updatedAt: string;
  /** Messages in the live transcript. */
  messageCount: number;
  meta?: Record<string, unknown>;
}

/** What a provider reported for one request. */
export interface UsageRecord {
  promptTokens: number;
  completionTokens?: number;
  model?: string;
}

/** A stored message: the message and where it came from. */
export interface StoredMessage {
  /** Sequence number, unique in the session, in the order messages were written. */
  seq: number;
  /** The turn that wrote it. */
  turnId: string;
  message: Message;
}

/** Everything one turn writes, committed together or not at all. */
export interface TurnWrite {
  /** A caller-chosen id; rolling back uses it. */
  turnId: string;
  /** Messages appended to the live transcript, in order. */
  messages: Message[];
  usage?: UsageRecord[];
  /** Per-session state to save with the turn (calibration, compression levels…). */
  state?: Record<string, unknown>;
}

/** A compaction: the live transcript replaced by a shorter one. */
export interface CompactionWrite {
  /** The new live transcript: kept messages (by seq) and new ones (summaries, markers) in order. */
  transcript: Array<{ seq: number } | { message: Message }>;
  /** The turn the compaction belongs to (new messages are recorded under it). */
  turnId: string;
  /** What produced it: `llm`, `fallback`, `truncate`… */
  kind: string;
  info?: Record<string, unknown>;
}

/** A compaction as stored, with the messages it took out of the live transcript. */
export interface CompactionRecord {
  id: number;
  kind: string;
  createdAt: string;
  removed: StoredMessage[];
  info?: Record<string, unknown>;
}

/** A new session's fields; the id is a random UUID unless given. */
export interface CreateSessionOptions {
  id?: string;
  title?: string;
  model?: string;
  meta?: Record<string, unknown>;
}

/**
 * Where sessions live. `SqliteSessionStore` is the implementation: on a file (the embedded default)
 * or in memory (`createMemorySessionStore()`, a private in-memory SQLite database); `JsonSessionStore`
 * stands in when better-sqlite3 is not installed.
 */
export interface SessionStore {
  createSession(options?: CreateSessionOptions): SessionRecord;
  getSession(id: string): SessionRecord | undefined;
  /** Newest first. */
  listSessions(options?: { limit?: number }): SessionRecord[];
  deleteSession(id: string): void;
  /** The live transcript, in order. */
  liveMessages(sessionId: string): StoredMessage[];
  /** Writes one turn atomically. */
  appendTurn(sessionId: string, turn: TurnWrite): StoredMessage[];
  /** Replaces the live transcript; messages taken out are kept with the compaction record. */
  applyCompaction(sessionId: string, compaction: CompactionWrite): CompactionRecord;
  compactions(sessionId: string): CompactionRecord[];
  /** Takes a failed turn's own messages out of the live transcript; compactions stay. */
  rollbackTurn(sessionId: string, turnId: string): number;
  usage(sessionId: string): UsageRecord[];
  loadState(sessionId: string): Record<string, unknown>;
  /**
   * Model limits learned from providers, shared by every session, each for
   * {@link LEARNED_LIMIT_TTL_MS} after it was learned: those of one server (`scope`, its root URL),
   * or without a scope those of every server (the newest per model).
   */
  learnedLimits(options?: { scope?: string }): Record<string, { contextLength?: number; outputCap?: number }>;
  /** Records a limit a server (`scope`, its root URL; default none) stated for a model. */
  saveLearnedLimit(
    model: string,
    limit: { contextLength?: number; outputCap?: number },
    options?: { scope?: string },
  ): void;
  /**
   * Takes a session for writing: granted when nobody holds it, when `holder` (same token) already
   * does, or when its holder's process has ended; otherwise says who holds it.
   */
  lockSession(sessionId: string, holder: SessionHolder): SessionLockResult;
  /** Gives a session back; only the holder with `token` can. */
  unlockSession(sessionId: string, token: string): void;
  close(): void;
}
