import { describe, expect, it } from 'vitest';
import { type ChatRequest, ContextWindowManager, type Message } from '../core/index.js';
import { refitAfterOverflow } from './refit-after-overflow.js';

function history(turns: number, size = 4_000): Message[] {
  const messages: Message[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Read the files.' },
  ];
  for (let turn = 0; turn < turns; turn++)
    messages.push(
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: `call_${turn}`, name: 'read_file', arguments: '{}' }],
      },
      { role: 'tool', toolCallId: `call_${turn}`, content: `line of the file ${turn} `.repeat(size / 5) },
    );
  return messages;
}

function request(messages: Message[], maxTokens?: number): ChatRequest {
  return {
    format: 'openai',
    model: 'm',
    messages,
    tools: [],
    extra: {},
    ...(maxTokens ? { maxTokens } : {}),
  };
}

describe('refitAfterOverflow', () => {
  it('answers a budget overflow with the room the error states, keeping every message', async () => {
    const messages = history(2);
    const sent = request(messages, 8_000);
    const result = await refitAfterOverflow({
      request: sent,
      history: messages,
      overflow: { kind: 'budget', window: 16_000, input: 10_000, output: 8_000, pattern: 'vllm' },
      manager: new ContextWindowManager({ contextLength: 32_768 }),
    });
    expect(result.action).toBe('lower_max_tokens');
    expect(result.request?.maxTokens).toBe(16_000 - 10_000 - 512);
    expect(result.request?.messages).toBe(messages);
    expect(result.removed).toEqual([]);
  });

  it('fits the whole history again to a learned window on a context overflow', async () => {
    const messages = history(8, 1_500);
    const manager = new ContextWindowManager({ contextLength: 200_000, model: 'm' });
    const sent = manager.fit(request(messages)).request;
    manager.learnWindow('m', 12_000);
    const result = await refitAfterOverflow({
      request: sent,
      history: messages,
      overflow: { kind: 'context', window: 12_000, input: 30_000, pattern: 'vllm' },
      manager,
    });
    expect(result.action).toBe('refit');
    expect(JSON.stringify(result.request?.messages).length).toBeLessThan(JSON.stringify(messages).length / 2);
    expect(result.steps[0]).toMatch(/12000-token window/);
  });

  it('lowers max_tokens to an output limit the error states, and gives up without one', async () => {
    const manager = new ContextWindowManager({ contextLength: 32_768 });
    const messages = history(1, 100);
    const lowered = await refitAfterOverflow({
      request: request(messages, 16_384),
      history: messages,
      overflow: { kind: 'output_cap', outputLimit: 8_192, pattern: 'openai' },
      manager,
    });
    expect(lowered.request?.maxTokens).toBe(8_192);
    const stuck = await refitAfterOverflow({
      request: request(messages, 16_384),
      history: messages,
      overflow: { kind: 'output_cap', pattern: 'openai' },
      manager,
    });
    expect(stuck.action).toBe('give_up');
  });

  it('gives up when the error states no window and refitting would change nothing', async () => {
    const manager = new ContextWindowManager({ contextLength: 200_000, model: 'm' });
    const messages = history(2, 100);
    const sent = manager.fit(request(messages)).request;
    const result = await refitAfterOverflow({
      request: sent,
      history: messages,
      overflow: { kind: 'context', pattern: 'generic' },
      manager,
    });
    expect(result).toMatchObject({ action: 'give_up', message: expect.stringMatching(/set context_length/) });
  });
});
