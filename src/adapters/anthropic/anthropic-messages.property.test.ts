import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ContextTruncatedError,
  ContextWindowManager,
  fitThinkingBudget,
  fromAnthropic,
  toAnthropic,
  validatePairing,
} from '../../core/index.js';

// Messages requests as `@anthropic-ai/sdk` callers build them: a system string or blocks with
// cache_control, user text and image blocks, assistant content as the SDK returns it (thinking with
// signatures, text, tool_use between them), tool results in one user message (string or block
// content, is_error) with text after them, request fields Spillway does not read.

type Json = Record<string, unknown>;

const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 60 }) },
  { weight: 1, arbitrary: fc.constant('   12\texport function fit(request: ChatRequest) {\n'.repeat(40)) },
);
const cache = fc.option(fc.constant({ type: 'ephemeral' }), { nil: undefined });
const textBlock = fc
  .tuple(text, cache)
  .map(([value, cacheControl]) =>
    cacheControl ? { type: 'text', text: value, cache_control: cacheControl } : { type: 'text', text: value },
  );
const userContent = fc.oneof(
  text,
  fc.array(
    fc.oneof(
      textBlock,
      fc.constant({
        type: 'image',
        source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
      }),
    ),
    { minLength: 1, maxLength: 3 },
  ),
);
type Item = 'thinking' | 'text' | 'call';
const turn = fc.record({
  items: fc.array(fc.constantFrom<Item>('thinking', 'text', 'call', 'call'), { minLength: 1, maxLength: 5 }),
  texts: fc.array(text, { minLength: 5, maxLength: 5 }),
  inputs: fc.array(fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 10 }), { maxKeys: 2 }), {
    minLength: 5,
    maxLength: 5,
  }),
  results: fc.array(fc.oneof(text, fc.array(textBlock, { minLength: 1, maxLength: 2 })), {
    minLength: 5,
    maxLength: 5,
  }),
  errors: fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
  note: fc.option(text, { nil: undefined }),
  followUp: fc.option(userContent, { nil: undefined }),
});

const bodyArbitrary: fc.Arbitrary<Json> = fc
  .record({
    system: fc.oneof(text, fc.array(textBlock, { minLength: 1, maxLength: 2 })),
    task: userContent,
    turns: fc.array(turn, { maxLength: 10 }),
    pending: fc.boolean(),
    maxTokens: fc.integer({ min: 1, max: 8_192 }),
  })
  .map(({ system, task, turns, pending, maxTokens }) => {
    const messages: Json[] = [{ role: 'user', content: task }];
    turns.forEach((shape, turnIndex) => {
      const content: Json[] = [];
      const results: Json[] = [];
      shape.items.forEach((item, index) => {
        const id = `toolu_${turnIndex}_${index}`;
        if (item === 'thinking')
          content.push({
            type: 'thinking',
            thinking: shape.texts[index],
            signature: `sig_${turnIndex}_${index}`,
          });
        if (item === 'text') content.push({ type: 'text', text: shape.texts[index], citations: null });
        if (item === 'call') {
          content.push({ type: 'tool_use', id, name: 'read_file', input: shape.inputs[index] });
          const result: Json = { type: 'tool_result', tool_use_id: id, content: shape.results[index] };
          if (shape.errors[index]) result.is_error = true;
          results.push(result);
        }
      });
      messages.push({ role: 'assistant', content });
      if (turnIndex === turns.length - 1 && pending && results.length > 0) return;
      if (results.length > 0)
        messages.push({
          role: 'user',
          content: shape.note ? [...results, { type: 'text', text: shape.note }] : results,
        });
      if (shape.followUp !== undefined) messages.push({ role: 'user', content: shape.followUp });
    });
    return {
      model: 'claude-sonnet-4-5',
      max_tokens: maxTokens,
      system,
      messages,
      thinking: { type: 'enabled', budget_tokens: 1_024 },
      metadata: { user_id: 'u_1' },
    };
  });

/** Every tool_result answers a tool_use of the assistant message before it; every tool_use but the newest is answered. */
function checkPairing(messages: Json[]): void {
  const called = new Set<string>();
  const answered = new Set<string>();
  let newest: string[] = [];
  for (const message of messages) {
    const blocks = Array.isArray(message.content) ? (message.content as Json[]) : [];
    if (message.role === 'assistant') {
      newest = blocks.filter((block) => block.type === 'tool_use').map((block) => block.id as string);
      for (const id of newest) called.add(id);
    }
    for (const block of blocks)
      if (block.type === 'tool_result') {
        expect(called.has(block.tool_use_id as string)).toBe(true);
        answered.add(block.tool_use_id as string);
      }
  }
  for (const id of called) if (!newest.includes(id)) expect(answered.has(id)).toBe(true);
}

describe('Anthropic Messages request ⇄ transcript (the anthropic adapter’s path)', () => {
  it('writes an unchanged request back equal, thinking signatures and cache_control included', () => {
    fc.assert(
      fc.property(bodyArbitrary, (body) => {
        const written = toAnthropic(fromAnthropic(body));
        expect(written).toEqual(body);
        // Messages read as one piece come back as the caller's objects; a user message of tool
        // results (split into one tool message each) is joined back into an equal new one.
        for (const [index, message] of (written.messages as Json[]).entries()) {
          const given = (body.messages as Json[])[index] as Json;
          const split =
            Array.isArray(given.content) &&
            (given.content as Json[]).some((block) => block.type === 'tool_result');
          if (!split) expect(message).toBe(given);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('reads every tool_result as its own tool message, paired with its tool_use', () => {
    fc.assert(
      fc.property(bodyArbitrary, (body) => {
        const { messages } = fromAnthropic(body);
        expect(validatePairing(messages).issues).toEqual([]);
        const results = (body.messages as Json[]).flatMap((message) =>
          Array.isArray(message.content)
            ? (message.content as Json[]).filter((block) => block.type === 'tool_result')
            : [],
        );
        expect(messages.filter((message) => message.role === 'tool')).toHaveLength(results.length);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps every tool_use with its tool_result, and thinking with its signature, when fitting prunes', () => {
    fc.assert(
      fc.property(bodyArbitrary, fc.integer({ min: 2_000, max: 16_000 }), (body, window) => {
        const manager = new ContextWindowManager({ contextLength: window, outputCap: 8_192 });
        let written: Json;
        try {
          written = toAnthropic(manager.fit(fromAnthropic(body)).request);
        } catch (error) {
          expect(ContextTruncatedError.isInstance(error)).toBe(true);
          return;
        }
        const original = body.messages as Json[];
        const messages = written.messages as Json[];
        checkPairing(messages);
        expect(written.system).toEqual(body.system);
        expect(messages[0]).toBe(original[0]);
        for (const message of messages) if (message.role === 'assistant') expect(original).toContain(message);
        // A cap lowered below the thinking budget takes the budget down with it (or drops thinking).
        expect(written.thinking).toEqual(
          written.max_tokens === body.max_tokens
            ? body.thinking
            : fitThinkingBudget(body.thinking, written.max_tokens as number),
        );
      }),
      { numRuns: 150 },
    );
  });
});
