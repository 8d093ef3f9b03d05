import { describe, expect, it } from 'vitest';
import type { Message } from '../core/index.js';
import { cancelledResults } from './cancelled-results.js';

const head: Message[] = [
  { role: 'system', content: 'S' },
  { role: 'user', content: 'task' },
];
const turn = (id: string): Message[] => [
  { role: 'assistant', content: '', toolCalls: [{ id, name: 'read_file', arguments: '{}' }] },
  { role: 'tool', toolCallId: id, content: `result ${id}` },
];

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
