import { describe, expect, it } from 'vitest';
import { splitTurns } from './split-turns.js';
import type { Message } from './types.js';

const system: Message = { role: 'system', content: 'be brief' };
const user = (content: string): Message => ({ role: 'user', content });
const assistant = (content: string, calls: string[] = []): Message => ({
  role: 'assistant',
  content,
  ...(calls.length ? { toolCalls: calls.map((id) => ({ id, name: 'read', arguments: '{}' })) } : {}),
});
const tool = (id: string): Message => ({ role: 'tool', toolCallId: id, content: 'ok' });

describe('splitTurns', () => {
  it('puts the system run and the first user message in the head', () => {
    const { head, turns } = splitTurns([system, system, user('task'), assistant('done')]);
    expect(head).toEqual({ start: 0, end: 3 });
    expect(turns).toEqual([{ start: 3, end: 4 }]);
  });

  it('opens a turn at every assistant message and keeps tool results and later user messages in it', () => {
    const messages = [
      system,
      user('task'),
      assistant('', ['a', 'b']),
      tool('a'),
      tool('b'),
      user('more'),
      assistant('', ['c']),
      tool('c'),
    ];
    expect(splitTurns(messages).turns).toEqual([
      { start: 2, end: 6 },
      { start: 6, end: 8 },
    ]);
  });

  it('treats a transcript without a user message as all head', () => {
    expect(splitTurns([system, assistant('hi')])).toEqual({ head: { start: 0, end: 2 }, turns: [] });
  });

  it('keeps everything before the first user message in the head', () => {
    expect(splitTurns([system, assistant('greeting'), user('task')]).head).toEqual({ start: 0, end: 3 });
  });

  it('keeps the user messages that open a conversation in the head, up to the first assistant message', () => {
    // Codex opens with its environment context, then the task: neither is a turn to drop.
    expect(splitTurns([user('<environment_context>'), user('b'), assistant('c')])).toEqual({
      head: { start: 0, end: 2 },
      turns: [{ start: 2, end: 3 }],
    });
    expect(splitTurns([user('a'), user('b')])).toEqual({ head: { start: 0, end: 2 }, turns: [] });
  });
});
