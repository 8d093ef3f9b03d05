import { describe, expect, it } from 'vitest';
import type { Message } from '../core/index.js';
import { REPLAY_REPLY_LINES, replayTurns } from './replay-turns.js';

const messages: Message[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'One' },
  { role: 'assistant', content: 'First answer.' },
  { role: 'user', content: 'Two\nwith a second line' },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'hidden thoughts' },
      { type: 'text', text: 'Looking.' },
    ],
    toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"a.ts"}' }],
  },
  { role: 'tool', toolCallId: 'c1', content: 'file text' },
  {
    role: 'assistant',
    content: Array.from({ length: REPLAY_REPLY_LINES + 2 }, (_, index) => `line ${index}`).join('\n'),
  },
];

describe('replayTurns', () => {
  it('shows the last prompts, their replies without reasoning, and the tools called', () => {
    const { lines, shownPrompts, totalPrompts } = replayTurns({ messages, prompts: 1 });
    expect({ shownPrompts, totalPrompts }).toEqual({ shownPrompts: 1, totalPrompts: 2 });
    expect(lines.map((line) => line.text)).toEqual([
      '› Two (+1 lines)',
      'Looking.',
      '▸ read_file {"path":"a.ts"}',
      ...Array.from({ length: REPLAY_REPLY_LINES }, (_, index) => `line ${index}`),
      '… 2 more lines',
    ]);
  });

  it('shows every prompt when there are fewer than asked', () => {
    const { lines, shownPrompts } = replayTurns({ messages, prompts: 3 });
    expect(shownPrompts).toBe(2);
    expect(lines[0]).toEqual({ kind: 'prompt', text: '› One' });
    expect(replayTurns({ messages: [] }).lines).toEqual([]);
  });
});
