import { describe, expect, it } from 'vitest';
import type { Message } from '../core/index.js';
import { createMemorySessionStore } from '../store/index.js';
import { cancelledResults, syncSessionStore } from './sync-session-store.js';

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

describe('cancelledResults', () => {
  it('answers the calls of the newest assistant message that have no result', () => {
    const messages: Message[] = [
      ...head,
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'x', name: 'run_command', arguments: '{}' },
          { id: 'y', name: 'read_file', arguments: '{}' },
        ],
      },
      { role: 'tool', toolCallId: 'x', content: 'Error: cancelled', isError: true },
    ];
    expect(cancelledResults(messages)).toEqual([
      { role: 'tool', toolCallId: 'y', content: expect.stringMatching(/cancelled this turn/), isError: true },
    ]);
    expect(cancelledResults([...head, ...turn('a')])).toEqual([]);
  });
});
