import { describe, expect, it } from 'vitest';
import type { Message } from '../core/index.js';
import { conversationKey } from './conversation-key.js';

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
});
