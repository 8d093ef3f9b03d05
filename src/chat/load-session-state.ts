import { SpillwayError } from '../core/index.js';
import type { LoopState } from '../loop/index.js';
import type { SessionRecord, SessionStore } from '../store/index.js';

/** The state of a chat that has not sent anything yet. */
export function emptyLoopState(): LoopState {
  return {
    version: 1,
    messages: [],
    iterations: 0,
    usage: { promptTokens: 0, completionTokens: 0, providerCalls: 0 },
  };
}

/** A session by its id or an unambiguous prefix of it. */
export function findSession(store: SessionStore, idOrPrefix: string): SessionRecord {
  const exact = store.getSession(idOrPrefix);
  if (exact) return exact;
  const matches = store.listSessions({ limit: 1_000 }).filter((session) => session.id.startsWith(idOrPrefix));
  if (matches.length === 1) return matches[0] as SessionRecord;
  throw new SpillwayError(
    'invalid_argument',
    matches.length === 0
      ? `no session ${idOrPrefix}; /sessions (or spillway chat, then /sessions) lists them`
      : `${matches.length} sessions start with ${idOrPrefix}; give more of the id`,
  );
}

/**
 * A stored session as a loop state to resume: its live transcript (compactions applied), the turn
 * count and driver state the tool loop saved with its last turn, and its usage added up.
 *
 * @example
 * const { session, state } = loadSessionState(store, '3f2a9c1d');
 * await runToolLoop({ client, driver, resume: state, … });
 */
export function loadSessionState(
  store: SessionStore,
  idOrPrefix: string,
): { session: SessionRecord; state: LoopState } {
  const session = findSession(store, idOrPrefix);
  const messages = store.liveMessages(session.id).map((stored) => stored.message);
  const saved = store.loadState(session.id) as Partial<Pick<LoopState, 'iterations' | 'driver'>>;
  const usage = { promptTokens: 0, completionTokens: 0, providerCalls: 0 };
  for (const record of store.usage(session.id)) {
    usage.promptTokens += record.promptTokens;
    usage.completionTokens += record.completionTokens ?? 0;
    usage.providerCalls++;
  }
  const iterations =
    typeof saved.iterations === 'number'
      ? saved.iterations
      : messages.filter((message) => message.role === 'assistant').length;
  return {
    session,
    state: { version: 1, messages, iterations, usage, ...(saved.driver ? { driver: saved.driver } : {}) },
  };
}
