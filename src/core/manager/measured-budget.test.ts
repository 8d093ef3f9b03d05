import { describe, expect, it } from 'vitest';
import { CLAMP_MARGIN, COUNTED_MARGIN } from '../budget/index.js';
import { ContextTruncatedError } from '../errors/index.js';
import type { ChatRequest, Message } from '../transcript/index.js';
import { ContextWindowManager } from './context-window-manager.js';

function request(messages: Message[]): ChatRequest {
  return { format: 'openai', model: 'gpt-4o', messages, tools: [], extra: {}, maxTokens: 1_000 };
}

const first: Message[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Summarize these notes, one line each.\n'.repeat(400) },
];

describe('the budget a measured count is judged against', () => {
  it('keeps only a template margin, not the safety share, once the count is anchored on the provider', () => {
    const manager = new ContextWindowManager({ contextLength: 20_000 });
    const sent = manager.fit(request(first));
    const safetyBudget = 20_000 - 1_000 - 600;
    // The provider counts the prompt between the estimate's budget and the window less the reserve.
    manager.observe({ promptTokens: safetyBudget + 50 });
    const next = [
      ...sent.request.messages,
      { role: 'assistant', content: 'Done.' },
      { role: 'user', content: 'Thanks.' },
    ] satisfies Message[];
    const result = manager.fit(request(next));
    expect(result.countSource).toBe('anchored');
    expect(result.estimate).toBeGreaterThan(safetyBudget);
    expect(result.verdict).toBe('fits');
    expect(result.cut.kind).toBe('none');
    expect(result.request.messages).toBe(next);
    expect(result.budget).toBe(20_000 - 1_000 - COUNTED_MARGIN);
    // max_tokens keeps the clamp's margin from the counted prompt.
    expect(result.request.maxTokens).toBe(Math.min(1_000, 20_000 - result.estimate - CLAMP_MARGIN));
  });

  it('judges a measured count over the window less the reserve and the template margin as over', () => {
    const manager = new ContextWindowManager({ contextLength: 20_000 });
    const sent = manager.fit(request(first));
    manager.observe({ promptTokens: 20_000 - 1_000 - COUNTED_MARGIN + 10 });
    const next = [
      ...sent.request.messages,
      { role: 'assistant', content: 'Done.' },
      { role: 'user', content: 'Thanks.' },
    ] satisfies Message[];
    // Head and one turn: nothing can be cut, and a measured count over the budget is a refusal.
    expect(() => manager.fit(request(next))).toThrow(ContextTruncatedError);
  });
});
