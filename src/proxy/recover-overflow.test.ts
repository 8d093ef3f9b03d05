import { describe, expect, it } from 'vitest';
import { type ChatRequest, classifyOverflow, fromOpenAIChat } from '../core/index.js';
import { fitForUpstream } from './fit-for-upstream.js';
import { recoverOverflow } from './recover-overflow.js';

function request(maxTokens: number, turns: number, size = 300): ChatRequest {
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
  return fromOpenAIChat({ model: 'm', messages, max_tokens: maxTokens });
}

describe('recoverOverflow', () => {
  it('lowers max_tokens for a budget overflow from the stated figures, history untouched', () => {
    const input = request(4_000, 3);
    const sent = fitForUpstream({ request: input, contextLength: 32_000 });
    const overflow = classifyOverflow({
      status: 400,
      body: `This model's maximum context length is 8192 tokens. However, you requested 4000 output tokens and your prompt contains 5000 input tokens, for a total of 9000 tokens.`,
    });
    expect(overflow.kind).toBe('budget');
    const result = recoverOverflow({ request: input, sent, overflow });
    expect(result.action).toBe('lower_max_tokens');
    expect(result.learned).toEqual({ contextLength: 8_192 });
    const input5000 = Math.max(5_000, sent.fit.estimate);
    expect(result.retry?.fit.request.maxTokens).toBe(8_192 - input5000 - 512);
    expect(result.retry?.fit.request.messages).toBe(sent.fit.request.messages);
  });

  it('handles a budget overflow that leaves no useful reply as context, pruning to the window', () => {
    const input = request(2_000, 14);
    const sent = fitForUpstream({ request: input, contextLength: 32_000 });
    const overflow = classifyOverflow({
      status: 400,
      body: `You passed 3001 input tokens and requested 2000 output tokens. However, the model's context length is only 5000 tokens, resulting in a maximum input length of 3000 tokens.`,
    });
    const result = recoverOverflow({ request: input, sent, overflow });
    expect(result.action).toBe('refit');
    expect(result.retry?.fit.window).toBe(5_000);
    expect(result.retry?.fit.estimate).toBeLessThan(sent.fit.estimate);
    expect(result.retry?.fit.estimate).toBeLessThanOrEqual(result.retry?.fit.budget ?? 0);
    expect(result.steps[0]).toMatch(/handled as context/);
  });

  it('lowers max_tokens to a stated output limit and remembers the cap', () => {
    const input = request(8_192, 1);
    const sent = fitForUpstream({ request: input, contextLength: 128_000 });
    const overflow = classifyOverflow({
      status: 400,
      body: 'max_tokens is too large: 8192. This model supports at most 4096 completion tokens, whereas you provided 8192.',
    });
    const result = recoverOverflow({ request: input, sent, overflow });
    expect(result).toMatchObject({ action: 'lower_output_cap', learned: { outputCap: 4_096 } });
    expect(result.retry?.fit.request.maxTokens).toBe(4_096);
  });

  it('refits a context overflow to the stated window', () => {
    const input = request(1_000, 14);
    const sent = fitForUpstream({ request: input, contextLength: 32_000 });
    const overflow = classifyOverflow({
      status: 400,
      body: `This model's maximum context length is 4096 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.`,
    });
    const result = recoverOverflow({ request: input, sent, overflow });
    expect(result.action).toBe('refit');
    expect(result.learned).toEqual({ contextLength: 4_096 });
    expect(result.retry?.fit.estimate).toBeLessThanOrEqual(result.retry?.fit.budget ?? 0);
  });

  it('gives up, with the reason, when nothing smaller can be sent', () => {
    const input = request(500, 1, 1_500);
    const sent = fitForUpstream({ request: input, contextLength: 32_000 });
    const overflow = classifyOverflow({
      status: 400,
      body: `This model's maximum context length is 2048 tokens. However, your messages resulted in 3000 tokens.`,
    });
    const result = recoverOverflow({ request: input, sent, overflow });
    expect(result.action).toBe('give_up');
    expect(result.retry).toBeUndefined();
    expect(result.message).toMatch(/2048-token window/);
  });
});
