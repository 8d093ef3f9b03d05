import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../core/index.js';
import { JsonSessionStore } from './json-session-store.js';
import { createMemorySessionStore } from './memory-session-store.js';
import { openSessionStore } from './open-session-store.js';
import { sessionHolder } from './session-lock.js';
import { LEARNED_LIMIT_TTL_MS, type SessionStore } from './session-store.js';
import { defaultStorePath, SqliteSessionStore } from './sqlite-session-store.js';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function tempPath(): string {
  const directory = mkdtempSync(join(tmpdir(), 'spillway-store-'));
  directories.push(directory);
  return join(directory, 'sessions.db');
}

const user = (content: string): Message => ({ role: 'user', content });
const assistant = (content: string): Message => ({ role: 'assistant', content });

/** Both stores, on a file and in memory: they must behave the same. */
const STORES: Array<{
  name: string;
  onFile: (path: string) => SessionStore;
  inMemory: (options?: { now?: () => string }) => SessionStore;
}> = [
  {
    name: 'SqliteSessionStore',
    onFile: (path) => new SqliteSessionStore(path),
    inMemory: (options) => createMemorySessionStore(options),
  },
  {
    name: 'JsonSessionStore',
    onFile: (path) => new JsonSessionStore(path.replace(/\.db$/, '.json')),
    inMemory: (options) => new JsonSessionStore(':memory:', options),
  },
];

describe.each(STORES)('$name', ({ onFile, inMemory: createMemorySessionStore }) => {
  it('gives a session to one writer at a time, and frees it when the writer is gone', () => {
    const path = tempPath();
    const mine = onFile(path);
    const session = mine.createSession({ title: 'one writer' });
    const theirs = onFile(path);
    const me = sessionHolder({ command: 'spillway chat' });
    // Another process that runs: this one's parent (its start time unknown, so taken as running).
    const { started: _started, ...another } = sessionHolder({ command: 'spillway chat' });
    const other = { ...another, pid: process.ppid };
    expect(mine.lockSession(session.id, me)).toEqual({ ok: true });
    expect(mine.lockSession(session.id, me)).toEqual({ ok: true });
    expect(theirs.lockSession(session.id, other)).toEqual({ ok: false, holder: me });
    theirs.unlockSession(session.id, other.token);
    expect(theirs.lockSession(session.id, other).ok).toBe(false);
    mine.unlockSession(session.id, me.token);
    expect(theirs.lockSession(session.id, other)).toEqual({ ok: true });
    // A holder whose process has ended holds nothing.
    const ended = { ...other, token: 'ended', pid: 2 ** 22 + 7 };
    mine.unlockSession(session.id, other.token);
    theirs.unlockSession(session.id, other.token);
    expect(mine.lockSession(session.id, ended)).toEqual({ ok: true });
    expect(theirs.lockSession(session.id, other)).toEqual({ ok: true });
    mine.close();
    theirs.close();
  });

  it('keeps sessions, turns, usage and state across reopening the file', () => {
    const path = tempPath();
    const store = onFile(path);
    const session = store.createSession({ title: 'fix tests', model: 'gpt-4o' });
    store.appendTurn(session.id, {
      turnId: 't1',
      messages: [user('go'), assistant('done')],
      usage: [{ promptTokens: 120, completionTokens: 8, model: 'gpt-4o' }],
      state: { calibration: { factor: 1.2 } },
    });
    store.close();
    const reopened = onFile(path);
    expect(reopened.liveMessages(session.id).map((stored) => stored.message)).toEqual([
      user('go'),
      assistant('done'),
    ]);
    expect(reopened.usage(session.id)).toEqual([{ promptTokens: 120, completionTokens: 8, model: 'gpt-4o' }]);
    expect(reopened.loadState(session.id)).toEqual({ calibration: { factor: 1.2 } });
    expect(reopened.getSession(session.id)).toMatchObject({
      title: 'fix tests',
      model: 'gpt-4o',
      messageCount: 2,
    });
    reopened.close();
  });

  it('replaces the live transcript on compaction and keeps the compacted-away messages', () => {
    const store = createMemorySessionStore();
    const { id } = store.createSession();
    const written = store.appendTurn(id, {
      turnId: 't1',
      messages: [user('task'), assistant('a'), assistant('b'), assistant('c')],
    });
    const summary: Message = { role: 'user', content: '[summary] a and b happened' };
    const record = store.applyCompaction(id, {
      turnId: 't2',
      kind: 'llm',
      transcript: [{ seq: written[0]!.seq }, { message: summary }, { seq: written[3]!.seq }],
    });
    expect(store.liveMessages(id).map((stored) => stored.message)).toEqual([
      user('task'),
      summary,
      assistant('c'),
    ]);
    expect(record.removed.map((stored) => stored.message)).toEqual([assistant('a'), assistant('b')]);
    expect(store.compactions(id)[0]?.removed.map((stored) => stored.message)).toEqual([
      assistant('a'),
      assistant('b'),
    ]);
  });

  it('rolls back only the failed turn’s own messages, keeping a compaction made during it', () => {
    const store = createMemorySessionStore();
    const { id } = store.createSession();
    const first = store.appendTurn(id, { turnId: 't1', messages: [user('task'), assistant('old work')] });
    store.appendTurn(id, { turnId: 't2', messages: [user('next step')] });
    store.applyCompaction(id, {
      turnId: 't2',
      kind: 'llm',
      transcript: [{ seq: first[0]!.seq }, { message: user('[summary] old work') }, { seq: 3 }],
    });
    expect(store.rollbackTurn(id, 't2')).toBe(2);
    expect(store.liveMessages(id).map((stored) => stored.message)).toEqual([user('task')]);
    expect(store.compactions(id)).toHaveLength(1);
  });

  it('rejects a compaction that keeps a message not in the live transcript, changing nothing', () => {
    const store = createMemorySessionStore();
    const { id } = store.createSession();
    store.appendTurn(id, { turnId: 't1', messages: [user('task')] });
    expect(() => store.applyCompaction(id, { turnId: 't2', kind: 'llm', transcript: [{ seq: 99 }] })).toThrow(
      /not in the live transcript/,
    );
    expect(store.liveMessages(id)).toHaveLength(1);
    expect(store.compactions(id)).toEqual([]);
  });

  it('names the session and the fix when it is missing', () => {
    const store = createMemorySessionStore();
    expect(() => store.appendTurn('nope', { turnId: 't', messages: [] })).toThrow(/no session nope/);
  });

  it('lists sessions newest first and persists learned limits', () => {
    let clock = 0;
    const store = createMemorySessionStore({
      now: () => new Date(Date.UTC(2026, 0, 1, 0, 0, clock++)).toISOString(),
    });
    const a = store.createSession({ title: 'a' });
    const b = store.createSession({ title: 'b' });
    store.appendTurn(a.id, { turnId: 't', messages: [user('x')] });
    expect(store.listSessions().map((session) => session.title)).toEqual(['a', 'b']);
    expect(b.messageCount).toBe(0);
    store.saveLearnedLimit('qwen', { contextLength: 21_000 });
    store.saveLearnedLimit('qwen', { outputCap: 4_096 });
    expect(store.learnedLimits()).toEqual({ qwen: { contextLength: 21_000, outputCap: 4_096 } });
  });

  it('keeps learned limits per server, and forgets them a day later', () => {
    let now = Date.UTC(2026, 0, 1);
    const store = createMemorySessionStore({ now: () => new Date(now).toISOString() });
    store.saveLearnedLimit('qwen', { contextLength: 8_192 }, { scope: 'http://small:8000' });
    now += 1_000;
    store.saveLearnedLimit('qwen', { contextLength: 32_768 }, { scope: 'http://large:8000' });
    expect(store.learnedLimits({ scope: 'http://small:8000' })).toEqual({ qwen: { contextLength: 8_192 } });
    expect(store.learnedLimits({ scope: 'http://other:8000' })).toEqual({});
    expect(store.learnedLimits()).toEqual({ qwen: { contextLength: 32_768 } });
    now += LEARNED_LIMIT_TTL_MS;
    expect(store.learnedLimits({ scope: 'http://large:8000' })).toEqual({});
  });

  it('deletes a session with everything it holds', () => {
    const store = createMemorySessionStore();
    const { id } = store.createSession();
    store.appendTurn(id, { turnId: 't1', messages: [user('task')], usage: [{ promptTokens: 3 }] });
    store.deleteSession(id);
    expect(store.getSession(id)).toBeUndefined();
    expect(store.usage(id)).toEqual([]);
    expect(store.listSessions()).toEqual([]);
  });
});

describe('SqliteSessionStore', () => {
  it('puts the default file under the user data directory unless SPILLWAY_STORE says otherwise', () => {
    expect(defaultStorePath({ XDG_DATA_HOME: '/data' })).toBe('/data/spillway/sessions.db');
    expect(defaultStorePath({ SPILLWAY_STORE: '/tmp/x.db' })).toBe('/tmp/x.db');
  });

  it('fails with a clear error when the file cannot be opened', () => {
    const file = tempPath();
    new SqliteSessionStore(file).close();
    // A path below a regular file can never be created.
    expect(() => new SqliteSessionStore(join(file, 'nested', 'sessions.db'))).toThrow(
      /cannot open the session store at .*SPILLWAY_STORE/,
    );
  });
});

describe('openSessionStore', () => {
  it('opens the SQLite store when better-sqlite3 is installed, and tells no fallback', () => {
    const path = tempPath();
    const fallbacks: unknown[] = [];
    const store = openSessionStore({ path, onFallback: (fallback) => fallbacks.push(fallback) });
    expect(store).toBeInstanceOf(SqliteSessionStore);
    expect(fallbacks).toEqual([]);
    store.close();
  });
});

describe('JsonSessionStore', () => {
  it('fails with a clear error when the file is not JSON, and leaves it alone', () => {
    const path = tempPath().replace(/\.db$/, '.json');
    writeFileSync(path, '{ not json');
    expect(() => new JsonSessionStore(path)).toThrow(/not valid JSON; move it away/);
    expect(readFileSync(path, 'utf8')).toBe('{ not json');
  });
});
