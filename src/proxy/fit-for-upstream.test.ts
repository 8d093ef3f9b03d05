import { describe, expect, it } from 'vitest';
import { type ChatRequest, ContextTruncatedError, fromOpenAIChat } from '../core/index.js';
import { fitForUpstream, replyReserve } from './fit-for-upstream.js';

function request(maxTokens?: number, turns = 2, size = 200): ChatRequest {
  const messages: unknown[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Fix the bug.' },
  ];
  for (let index = 0; index < turns; index++) {
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `call_${index}`, type: 'function', function: { name: 'run', arguments: '{}' } }],
    });
    messages.push({ role: 'tool', tool_call_id: `call_${index}`, content: `line ${index} `.repeat(size) });
  }
  return fromOpenAIChat({
    model: 'm',
    messages,
    ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
  });
}

describe('replyReserve', () => {
  it('reserves the request max_tokens, the cap or nothing, never more than a quarter of the window', () => {
    expect(replyReserve({ window: 100_000, requested: 4_000 })).toBe(4_000);
    expect(replyReserve({ window: 9_600, requested: 9_600, outputCap: 9_600 })).toBe(2_400);
    expect(replyReserve({ window: 9_600, outputCap: 1_000 })).toBe(1_000);
    expect(replyReserve({ window: 9_600 })).toBeUndefined();
  });
});

describe('fitForUpstream', () => {
  it('keeps a max_tokens the window has room for and leaves the request unchanged', () => {
    const input = request(1_000);
    const fit = fitForUpstream({ request: input, contextLength: 32_000 });
    expect(fit.unchanged).toBe(true);
    expect(fit.request.messages).toBe(input.messages);
    expect(fit.request.maxTokens).toBe(1_000);
  });

  it('lowers a max_tokens over a quarter of the window instead of pruning the history for it', () => {
    const input = request(9_600);
    const fit = fitForUpstream({ request: input, contextLength: 9_600, outputCap: 9_600 });
    expect(fit.unchanged).toBe(false);
    expect(fit.droppedTurns).toBe(0);
    expect(fit.request.messages).toBe(input.messages);
    expect(fit.budget).toBe(9_600 - 2_400 - 288);
    expect(fit.request.maxTokens).toBe(9_600 - fit.estimate - 512);
  });

  it('fills in max_tokens when the request has none', () => {
    const fit = fitForUpstream({ request: request(), contextLength: 9_600, outputCap: 2_000 });
    expect(fit.request.maxTokens).toBe(2_000);
    const uncapped = fitForUpstream({ request: request(), contextLength: 9_600 });
    expect(uncapped.request.maxTokens).toBe(9_600 - uncapped.estimate - 512);
    expect(fit.request.maxTokensField).toBe('max_tokens');
  });

  it('brings a prompt over the budget under it (old tool outputs compressed, oldest turns dropped)', () => {
    const input = request(1_000, 12, 400);
    const whole = fitForUpstream({ request: input, contextLength: 128_000 });
    const fit = fitForUpstream({ request: input, contextLength: 4_096 });
    expect(whole.estimate).toBeGreaterThan(fit.budget);
    expect(fit.unchanged).toBe(false);
    expect(fit.estimate).toBeLessThanOrEqual(fit.budget);
  });

  it('takes a configured reserve as it is', () => {
    const fit = fitForUpstream({ request: request(9_600), contextLength: 9_600, reserve: 5_000 });
    expect(fit.budget).toBe(9_600 - 5_000 - 288);
    expect(fit.request.maxTokens).toBe(9_600 - fit.estimate - 512);
  });

  it('throws ContextTruncatedError when even the head and newest turn do not fit', () => {
    expect(() => fitForUpstream({ request: request(100, 1, 3_000), contextLength: 1_024 })).toThrow(
      ContextTruncatedError,
    );
  });
});
