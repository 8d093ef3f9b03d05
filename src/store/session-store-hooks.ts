/**
 * @module
 * A tool loop's hooks that keep a session in the store: the history it starts from, every finished
 * turn in one transaction, every compaction the send path made as a compaction record.
 */
import type { HistoryChange, Message } from '../core/index.js';
import type { SessionStore, TurnWrite } from './session-store.js';
import { syncSessionStore } from './sync-session-store.js';

/** The hooks `runToolLoop` calls (`LoopHooks` in `spillway/loop`), as the store needs them. */
export interface SessionStoreHooks {
  onStart(messages: readonly Message[]): void;
  onTurn(turn: Omit<TurnWrite, 'state'> & { state: object }): void;
  onHistoryChange(change: HistoryChange & { turnId: string }): void;
}

/**
 * Hooks that write a run to session `sessionId`: the live transcript mirrors the run's history one
 * to one.
 *
 * @example
 * await runToolLoop({ client, driver, messages, hooks: sessionStoreHooks(store, session.id) });
 */
export function sessionStoreHooks(store: SessionStore, sessionId: string): SessionStoreHooks {
  return {
    onStart(messages) {
      // The session holds the history the run starts from (the task, or what a resume carries).
      const stored = store.liveMessages(sessionId).length;
      if (stored < messages.length)
        store.appendTurn(sessionId, { turnId: 'start', messages: messages.slice(stored) });
    },
    onTurn(turn) {
      store.appendTurn(sessionId, { ...turn, state: { ...turn.state } });
    },
    onHistoryChange(change) {
      syncSessionStore({
        store,
        sessionId,
        messages: change.after,
        turnId: change.turnId,
        kind: change.kind,
      });
    },
  };
}
