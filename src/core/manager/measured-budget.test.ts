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

  it('sends a measured count past the template margin but within the window less the reserve, and refuses one past that', () => {
    const next = (sent: readonly Message[]) =>
      [
        ...sent,
        { role: 'assistant', content: 'Done.' },
        { role: 'user', content: 'Thanks.' },
      ] satisfies Message[];
    // Head and one turn: nothing can be cut. The provider counted the previous request past the
    // template margin; the next one still leaves its reply the reserve, so it goes out whole.
    const within = new ContextWindowManager({ contextLength: 20_000 });
    const sentFirst = within.fit(request(first)).request.messages;
    within.observe({ promptTokens: 20_000 - 1_000 - COUNTED_MARGIN + 10 });
    const result = within.fit(request(next(sentFirst)));
    expect(result).toMatchObject({ verdict: 'uncertain', countSource: 'anchored' });
    expect(result.request.messages).toEqual(next(sentFirst));
    expect(result.estimate).toBeLessThanOrEqual(20_000 - 1_000);
    // Counted past the window less the reserve: even the least it can be leaves no room. Refused.
    const past = new ContextWindowManager({ contextLength: 20_000 });
    const again = past.fit(request(first)).request.messages;
    past.observe({ promptTokens: 20_000 - 1_000 + 10 });
    expect(() => past.fit(request(next(again)))).toThrow(ContextTruncatedError);
  });
});

describe('a newest tool result the upper bound leaves no room for', () => {
  it('is shortened to what the lower bound leaves within the window less the reserve, not refused', () => {
    // A window the head fills but for 5 tokens of the budget a provider's count is judged against,
    // and the count's margin below the limit (the window less the reply's reserve).
    const head = new ContextWindowManager({ contextLength: 100_000 }).fit(request(first)).estimate;
    const manager = new ContextWindowManager({ contextLength: head + 1_000 + COUNTED_MARGIN + 5 });
    const sent = manager.fit(request(first)).request.messages;
    // The provider counts the head as estimated: on the count's upper bound the rest of the next
    // request leaves a tool result no room; on its lower bound there is room below the limit.
    manager.observe({ promptTokens: head });
    const output = Array.from({ length: 3_000 }, (_, line) => `row ${line}: value ${line * 7}`).join('\n');
    const next: Message[] = [
      ...sent,
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'call_1', name: 'bash', arguments: '{"command":"cat data.txt"}' }],
      },
      { role: 'tool', toolCallId: 'call_1', content: output },
    ];
    const result = manager.fit(request(next));
    expect(result.verdict).toBe('uncertain');
    expect(result.cut.shortened).toBe(1);
    expect(result.request.messages.slice(0, 3)).toEqual(next.slice(0, 3));
    const kept = String(result.request.messages.at(-1)?.content);
    expect(kept.length).toBeLessThan(output.length);
    expect(kept).toMatch(/of this output cut to fit the context window/);
    expect(result.estimate).toBeGreaterThan(result.budget);
  });
});
