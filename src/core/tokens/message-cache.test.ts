import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../transcript/index.js';
import { createEstimator } from './estimator.js';
import { EstimateCache, lastQueryIndex } from './message-cache.js';
import { CHATML_TEMPLATE, ESTIMATOR_TEMPLATE } from './overheads.js';

const counter = createEstimator({ family: 'o200k' });
const reasoning =
  'First I should read the failing test, then compare the expected reserve with the code. '.repeat(6);

function thinkingTurn(text: string): Extract<Message, { role: 'assistant' }> {
  return {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: reasoning, extra: { signature: 'EqQBCkYIBxgCKkDsig' } },
      { type: 'text', text },
    ],
  };
}

describe('reasoning as templates render it', () => {
  it('counts reasoning before the last user query as nothing and reasoning after it in full', () => {
    const cache = new EstimateCache(counter);
    const earlier = thinkingTurn('The reserve is 1,000.');
    const current = thinkingTurn('Reading the file.');
    const withoutReasoning: Message = { role: 'assistant', content: 'The reserve is 1,000.' };
    const before = [
      { role: 'user', content: 'Why?' } as Message,
      earlier,
      { role: 'user', content: 'Fix it.' } as Message,
    ];
    const plain = [before[0] as Message, withoutReasoning, before[2] as Message];
    expect(cache.messages(before).total).toBe(cache.messages(plain).total);
    const after = [...before, current];
    expect(cache.messages(after).total).toBe(cache.messages(before).total + cache.message(current).total);
    expect(cache.message(current).total).toBeGreaterThan(
      cache.message({ role: 'assistant', content: 'Reading the file.' }).total,
    );
  });

  it('does not end the tool loop at user text sent beside tool results', () => {
    const messages: Message[] = [
      { role: 'user', content: 'Why?' },
      { ...thinkingTurn(''), toolCalls: [{ id: 't1', name: 'read', arguments: '{}' }] },
      { role: 'tool', toolCallId: 't1', content: 'ok' },
      { role: 'user', content: 'also check b.ts', wire: { attached: true } },
    ];
    expect(lastQueryIndex(messages)).toBe(0);
  });

  it('never counts a transcript above the sum of its messages, nor below it without reasoning', () => {
    const message = fc.oneof(
      fc.constant<Message>({ role: 'user', content: 'next' }),
      fc.constant<Message>(thinkingTurn('done')),
      fc.constant<Message>({ role: 'assistant', content: 'plain' }),
    );
    fc.assert(
      fc.property(fc.array(message, { maxLength: 12 }), (messages) => {
        const cache = new EstimateCache(counter);
        const total = cache.messages(messages).total;
        const full = messages.reduce((sum, item) => sum + cache.message(item).total, 0);
        expect(total).toBeLessThanOrEqual(full);
        const last = lastQueryIndex(messages);
        const tail = messages.slice(last + 1).reduce((sum, item) => sum + cache.message(item).total, 0);
        expect(total).toBeGreaterThanOrEqual(tail);
      }),
    );
  });
});

describe('template costs', () => {
  it('adds a template’s default system prompt only to a request without a system message', () => {
    const cache = new EstimateCache(counter, { template: CHATML_TEMPLATE });
    const user: Message = { role: 'user', content: 'hi' };
    const system: Message = { role: 'system', content: 'You are terse.' };
    const bare = cache.request({ messages: [user], tools: [] });
    const withSystem = cache.request({ messages: [system, user], tools: [] });
    expect(bare.overhead).toBe(
      CHATML_TEMPLATE.message + CHATML_TEMPLATE.request + CHATML_TEMPLATE.defaultSystem,
    );
    expect(withSystem.overhead).toBe(2 * CHATML_TEMPLATE.message + CHATML_TEMPLATE.request);
  });

  it('counts call ids only for templates that render them', () => {
    const call: Message = {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'call_8f14e45fceea167a5a36', name: 'read', arguments: '{}' }],
    };
    const chatml = new EstimateCache(counter, { template: CHATML_TEMPLATE }).message(call);
    const estimator = new EstimateCache(counter, { template: ESTIMATOR_TEMPLATE }).message(call);
    expect(estimator.dense - chatml.dense).toBe(counter.count('call_8f14e45fceea167a5a36'));
  });
});

describe('running totals of a history counted again', () => {
  const messageArbitrary = fc.oneof(
    fc.string({ maxLength: 40 }).map((content): Message => ({ role: 'user', content })),
    fc.string({ maxLength: 40 }).map((text): Message => thinkingTurn(text)),
    fc.string({ maxLength: 80 }).map((content): Message => ({ role: 'tool', toolCallId: 'c', content })),
    fc.string({ maxLength: 40 }).map((content): Message => ({ role: 'assistant', content })),
  );
  const change = fc.oneof(
    fc
      .array(messageArbitrary, { minLength: 1, maxLength: 6 })
      .map((added) => ({ kind: 'append' as const, added })),
    fc.nat().map((at) => ({ kind: 'cut' as const, at })),
    fc.tuple(fc.nat(), messageArbitrary).map(([at, message]) => ({ kind: 'replace' as const, at, message })),
  );

  it('count a list as a fresh count does, bit for bit, whatever was counted before', () => {
    fc.assert(
      fc.property(
        fc.array(messageArbitrary, { minLength: 30, maxLength: 60 }),
        fc.array(change, { maxLength: 12 }),
        (start, changes) => {
          const cache = new EstimateCache(counter);
          let list = start;
          const lists = [list];
          for (const step of changes) {
            if (step.kind === 'append') list = [...list, ...step.added];
            else if (step.kind === 'cut') list = list.slice(0, step.at % (list.length + 1));
            else if (list.length > 0) {
              const at = step.at % list.length;
              list = [...list.slice(0, at), step.message, ...list.slice(at + 1)];
            }
            lists.push(list);
          }
          for (const each of [...lists, ...lists.reverse()])
            expect(cache.messages(each)).toEqual(new EstimateCache(counter).messages(each));
        },
      ),
      { numRuns: 150 },
    );
  });
});
