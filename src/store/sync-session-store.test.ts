import { describe, expect, it } from 'vitest';
import type { Message } from '../core/index.js';
import { createMemorySessionStore } from './memory-session-store.js';
import { syncSessionStore } from './sync-session-store.js';

const head: Message[] = [
  { role: 'system', content: 'S' },
  { role: 'user', content: 'task' },
];
const turn = (id: string): Message[] => [
  { role: 'assistant', content: '', toolCalls: [{ id, name: 'read_file', arguments: '{}' }] },
  { role: 'tool', toolCallId: id, content: `result ${id}` },
];

describe('syncSessionStore', () => {
  it('rewrites the live transcript to the compacted history, keeping stored messages by seq', () => {
    const store = createMemorySessionStore();
    const { id } = store.createSession();
    store.appendTurn(id, { turnId: 't1', messages: [...head, ...turn('a'), ...turn('b')] });
    const summary: Message = { role: 'user', content: '[compacted]' };
    const compacted = [...head, summary, ...turn('b')];
    expect(
      syncSessionStore({ store, sessionId: id, messages: compacted, turnId: 'c1', kind: 'digest' }),
    ).toBe(true);
    expect(store.liveMessages(id).map((stored) => stored.message)).toEqual(compacted);
    const [record] = store.compactions(id);
    expect(record?.kind).toBe('digest');
    expect(record?.removed.map((stored) => stored.message)).toEqual(turn('a'));
    expect(
      syncSessionStore({ store, sessionId: id, messages: compacted, turnId: 'c2', kind: 'digest' }),
    ).toBe(false);
    expect(store.compactions(id)).toHaveLength(1);
  });
});
