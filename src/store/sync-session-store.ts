import type { Message } from '../core/index.js';
import type { SessionStore } from './session-store.js';

/**
 * Makes a session's live transcript in the store equal to `messages` when a compaction rewrote the
 * history in memory (overflow recovery, exhaustion, `/compact`). Messages the store already holds are
 * kept by their sequence number, new ones are written, and the ones no longer in the history stay in
 * the compaction record. Returns false when the two already agree (nothing written).
 *
 * @example
 * syncSessionStore({ store, sessionId, messages: state.messages, turnId: 'compact-3', kind: 'digest' });
 */
export function syncSessionStore({
  store,
  sessionId,
  messages,
  turnId,
  kind,
  info,
}: {
  store: SessionStore;
  sessionId: string;
  messages: readonly Message[];
  turnId: string;
  kind: string;
  info?: Record<string, unknown>;
}): boolean {
  const live = store.liveMessages(sessionId);
  const bySeq = new Map<string, number[]>();
  for (const stored of live) {
    const key = JSON.stringify(stored.message);
    bySeq.set(key, [...(bySeq.get(key) ?? []), stored.seq]);
  }
  const transcript = messages.map((message) => {
    const seq = bySeq.get(JSON.stringify(message))?.shift();
    return seq === undefined ? { message } : { seq };
  });
  const unchanged =
    transcript.length === live.length &&
    transcript.every((item, index) => 'seq' in item && item.seq === live[index]?.seq);
  if (unchanged) return false;
  store.applyCompaction(sessionId, { transcript, turnId, kind, ...(info ? { info } : {}) });
  return true;
}
