import { describe, expect, it } from 'vitest';
import type { Message } from '../core/index.js';
import { conversationKey, hashMessages } from './conversation-key.js';
import { sha256 } from './sha256.js';

const system: Message = { role: 'system', content: 'You are a coding agent.' };
const task: Message = { role: 'user', content: 'Fix the bug.' };
function turn(index: number): Message[] {
  return [
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: `call_${index}`, name: 'read_file', arguments: '{}' }],
    },
    { role: 'tool', toolCallId: `call_${index}`, content: `file ${index}` },
  ];
}
const history: Message[] = [system, task, ...turn(1), ...turn(2), ...turn(3)];

describe('conversationKey', () => {
  it('is the same for every request of one conversation, and differs by head and model', () => {
    const key = conversationKey({ model: 'm', messages: history.slice(0, 4) });
    expect(conversationKey({ model: 'm', messages: history })).toBe(key);
    expect(conversationKey({ model: 'other', messages: history })).not.toBe(key);
    const otherTask: Message = { role: 'user', content: 'Write the docs.' };
    expect(conversationKey({ model: 'm', messages: [system, otherTask, ...turn(1)] })).not.toBe(key);
  });

  it('hashes a head read again into the same objects as it did, and any other head by its content', () => {
    const plain = (messages: Message[]) =>
      sha256(messages.map((message) => `${JSON.stringify(message)}\n`).join(''));
    const head = [system, task];
    expect(hashMessages(head)).toBe(plain(head));
    expect(hashMessages(head)).toBe(plain(head));
    // Equal content in new objects, one message more, one message less, another before the last.
    const copies = head.map((message) => ({ ...message }));
    expect(hashMessages(copies)).toBe(plain(head));
    expect(hashMessages([system, system, task])).toBe(plain([system, system, task]));
    expect(hashMessages([task])).toBe(plain([task]));
    const other: Message = { role: 'system', content: 'You review code.' };
    expect(hashMessages([other, task])).toBe(plain([other, task]));
    expect(hashMessages([other, task])).not.toBe(hashMessages(head));
  });

  it('is the SHA-256 of the model, the credential and the head hash, while others come and go', () => {
    const expected = (model: string, credential?: string) =>
      sha256(`${model}\n${credential === undefined ? '' : `${credential}\n`}${hashMessages([system, task])}`);
    expect(conversationKey({ model: 'm', messages: history })).toBe(expected('m'));
    expect(conversationKey({ model: 'm', messages: history, credential: 'c1' })).toBe(expected('m', 'c1'));
    // More keys than are remembered, then the first ones again: the same keys.
    for (let index = 0; index < 3_000; index++)
      conversationKey({ model: `model-${index}`, messages: history, credential: String(index) });
    expect(conversationKey({ model: 'm', messages: history })).toBe(expected('m'));
    expect(conversationKey({ model: 'm', messages: history, credential: 'c1' })).toBe(expected('m', 'c1'));
  });
});
