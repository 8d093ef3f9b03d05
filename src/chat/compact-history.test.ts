import { describe, expect, it } from 'vitest';
import { type Message, validatePairing } from '../core/index.js';
import { digestHistory } from './compact-history.js';

const messages: Message[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Why do the tests fail?' },
  {
    role: 'assistant',
    content: 'Let me read the store.',
    toolCalls: [{ id: 'a', name: 'read_file', arguments: '{"path":"src/store.ts"}' }],
  },
  { role: 'tool', toolCallId: 'a', content: 'export class Store {}'.repeat(100) },
  {
    role: 'assistant',
    content: 'The store looks fine. ',
    toolCalls: [{ id: 'b', name: 'run_command', arguments: '{"command":"npm test"}' }],
  },
  { role: 'tool', toolCallId: 'b', content: 'FAIL src/store.test.ts' },
  { role: 'user', content: 'Also check the config.' },
  {
    role: 'assistant',
    content: '',
    toolCalls: [{ id: 'c', name: 'read_file', arguments: '{"path":"src/config.ts"}' }],
  },
  { role: 'tool', toolCallId: 'c', content: 'export const config = {};' },
];

describe('digestHistory', () => {
  it('keeps the head and the newest turn and lists what happened in between', () => {
    const result = digestHistory(messages);
    if (!result.ok) throw new Error(result.message);
    expect(result.messages.slice(0, 2)).toEqual(messages.slice(0, 2));
    expect(result.messages.slice(-2)).toEqual(messages.slice(-2));
    expect(result.removed).toEqual(messages.slice(2, 7));
    const digest = result.messages[2];
    expect(digest?.role).toBe('user');
    expect(digest?.content).toContain('[compacted: 5 earlier messages (2 turns)');
    expect(digest?.content).toContain('- [tool read_file({"path":"src/store.ts"}) ran, result elided]');
    expect(digest?.content).toContain('- user: Also check the config.');
    expect(validatePairing(result.messages).ok).toBe(true);
  });

  it('has nothing to compact before a second turn', () => {
    expect(digestHistory(messages.slice(0, 4))).toMatchObject({ ok: false });
  });
});
