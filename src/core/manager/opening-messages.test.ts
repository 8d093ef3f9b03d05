import { describe, expect, it } from 'vitest';
import type { Message } from '../transcript/index.js';
import { ContextWindowManager } from './context-window-manager.js';

const TASK = 'Count the lines of notes.txt and todo.md.';

/**
 * A history shaped as Codex sends it: its instructions, then two user messages before the first
 * reply (its environment context, then the task), then `turns` tool turns of about 500 tokens each.
 */
function codexShaped(turns: number): Message[] {
  const messages: Message[] = [
    { role: 'system', content: 'You are Codex, a coding agent.' },
    { role: 'user', content: '<environment_context>\n  <cwd>/work/project</cwd>\n</environment_context>' },
    { role: 'user', content: TASK },
  ];
  for (let turn = 0; turn < turns; turn++) {
    const id = `call_${turn}`;
    messages.push(
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id, name: 'shell', arguments: `{"command":"cat f${turn}"}` }],
      },
      { role: 'tool', toolCallId: id, content: `line ${turn}: ${'some output of the command '.repeat(80)}` },
    );
  }
  return messages;
}

describe('a conversation that opens with several user messages', () => {
  it('keeps every opening message, the task included, however much is cut', () => {
    const manager = new ContextWindowManager({ contextLength: 3_000, model: 'gpt-4o' });
    for (const turns of [12, 20, 40]) {
      const messages = codexShaped(turns);
      const { request, cut } = manager.fit({ format: 'openai', messages, tools: [], extra: {} });
      expect(cut.kind).not.toBe('none');
      expect(request.messages.slice(0, 3)).toEqual(messages.slice(0, 3));
      expect(request.messages.filter((message) => message.content === TASK)).toHaveLength(1);
    }
  });

  it('takes the marker of the cut in force out with the next cut: one marker, never two', () => {
    const manager = new ContextWindowManager({ contextLength: 3_000, model: 'gpt-4o' });
    let cuts = 0;
    for (let turns = 4; turns <= 60; turns++) {
      const { request, cut } = manager.fit({
        format: 'openai',
        messages: codexShaped(turns),
        tools: [],
        extra: {},
      });
      if (cut.kind === 'drop' || cut.kind === 'elide+drop') cuts++;
      const markers = request.messages.filter(
        (message) => typeof message.content === 'string' && message.content.startsWith('[pruned #'),
      );
      expect(markers.length).toBeLessThanOrEqual(1);
      if (markers.length === 1) expect(request.messages.indexOf(markers[0] as Message)).toBe(3);
    }
    expect(cuts).toBeGreaterThan(1);
  });
});
