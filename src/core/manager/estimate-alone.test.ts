import { describe, expect, it } from 'vitest';
import type { ChatRequest, Message } from '../transcript/index.js';
import { ContextWindowManager } from './context-window-manager.js';

function request(messages: Message[]): ChatRequest {
  return { format: 'openai', model: 'gpt-4o', messages, tools: [], extra: {} };
}

const head: Message[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Fix the failing test.' },
];

function turn(index: number, size: number): Message[] {
  const id = `call_${index}`;
  return [
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ id, name: 'read_file', arguments: `{"path":"src/file${index}.ts"}` }],
    },
    { role: 'tool', toolCallId: id, content: `export const value${index} = 1;\n`.repeat(size) },
  ];
}

/**
 * A conversation with a cut in force: three reads, the provider counting each request at three
 * quarters of the estimate; then a fourth read of `size` lines.
 */
function fitWithNewestRead(size: number) {
  const manager = new ContextWindowManager({ contextLength: 4_000 });
  let messages = [...head, ...turn(1, 200), ...turn(2, 200)];
  for (const next of [turn(3, 200), turn(4, size)]) {
    const fitted = manager.fit(request(messages));
    manager.observe({ promptTokens: Math.round(0.75 * fitted.estimate) });
    messages = [...messages, ...next];
  }
  return { result: manager.fit(request(messages)), newest: messages.at(-1) as Message };
}

describe('the newest turn, when only the estimate says the deepest cut is over', () => {
  it('goes out whole for a count or the provider to judge: nothing of it is cut on an estimate alone', () => {
    const { result, newest } = fitWithNewestRead(400);
    expect(result.estimate).toBeGreaterThan(result.budget);
    expect(result.verdict).toBe('uncertain');
    expect(result.cut).toMatchObject({ kind: 'drop', shortened: 0 });
    expect(result.request.messages.at(-1)).toBe(newest);
  });

  it('is shortened when even the least it can count is over the budget', () => {
    const { result, newest } = fitWithNewestRead(900);
    expect(result.verdict).toBe('fits');
    expect(result.cut.shortened).toBe(1);
    expect(result.request.messages.at(-1)).not.toBe(newest);
    expect(result.estimate).toBeLessThanOrEqual(result.budget);
  });
});
