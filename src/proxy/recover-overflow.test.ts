import { describe, expect, it } from 'vitest';
import { type ChatRequest, classifyOverflow, fromOpenAIChat, type Summarizer } from '../core/index.js';
import { fitForUpstream } from './fit-for-upstream.js';
import { recoverUpstreamOverflow } from './recover-overflow.js';

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

describe('recoverUpstreamOverflow', () => {
  it('lowers max_tokens for a budget overflow from the stated figures, history untouched', async () => {
    const input = request(4_000, 3);
    const sent = fitForUpstream({ request: input, contextLength: 32_000 });
    const overflow = classifyOverflow({
      status: 400,
      body: `This model's maximum context length is 8192 tokens. However, you requested 4000 output tokens and your prompt contains 5000 input tokens, for a total of 9000 tokens.`,
    });
    expect(overflow.kind).toBe('budget');
    const result = await recoverUpstreamOverflow({ sent, overflow });
    expect(result.action).toBe('lower_max_tokens');
    expect(result.learned).toEqual({ contextLength: 8_192 });
    expect(result.retry?.request.maxTokens).toBeLessThan(4_000);
    expect(result.retry?.request.messages).toEqual(sent.request.messages);
    expect(result.retry?.window).toBe(8_192);
    expect(result.steps.at(-1)).toMatch(/^budget: max_tokens = 8192 - /);
  });

  it('compacts a context overflow with the summarizer and sizes the retry for the stated window', async () => {
    const input = request(1_000, 14);
    const sent = fitForUpstream({ request: input, contextLength: 32_000 });
    const overflow = classifyOverflow({
      status: 400,
      body: `This model's maximum context length is 8192 tokens. However, your messages resulted in 24000 tokens. Please reduce the length of the messages.`,
    });
    const requests: ChatRequest[] = [];
    const summarize: Summarizer = async (summary) => {
      requests.push(summary);
      return { text: '1. Goal: fix the bug. 2. Ran the command 14 times.' };
    };
    const result = await recoverUpstreamOverflow({ sent, overflow, summarize });
    expect(result.action).toBe('compacted');
    expect(requests.length).toBeGreaterThan(0);
    expect(result.learned).toEqual({ contextLength: 8_192 });
    expect(result.messages?.length).toBeLessThan(input.messages.length);
    expect(result.retry?.window).toBe(8_192);
    expect(result.retry?.estimate).toBeLessThanOrEqual(result.retry?.budget ?? 0);
    expect(result.retry?.droppedTurns).toBeGreaterThan(0);
  });

  it('lowers max_tokens to a stated output limit and remembers the cap', async () => {
    const input = request(8_192, 1);
    const sent = fitForUpstream({ request: input, contextLength: 128_000 });
    const overflow = classifyOverflow({
      status: 400,
      body: 'max_tokens is too large: 8192. This model supports at most 4096 completion tokens, whereas you provided 8192.',
    });
    const result = await recoverUpstreamOverflow({ sent, overflow });
    expect(result).toMatchObject({ action: 'lower_output_cap', learned: { outputCap: 4_096 } });
    expect(result.retry?.request.maxTokens).toBe(4_096);
  });

  it('gives up, with the reason, when nothing smaller can be sent', async () => {
    const input = request(500, 1, 1_500);
    const sent = fitForUpstream({ request: input, contextLength: 32_000 });
    const overflow = classifyOverflow({
      status: 400,
      body: `This model's maximum context length is 2048 tokens. However, your messages resulted in 3000 tokens.`,
    });
    const result = await recoverUpstreamOverflow({ sent, overflow });
    expect(result.action).toBe('give_up');
    expect(result.retry).toBeUndefined();
    expect(result.message).toMatch(/2048/);
  });
});
