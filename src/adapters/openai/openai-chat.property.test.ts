import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ContextTruncatedError,
  ContextWindowManager,
  fromOpenAIChat,
  toOpenAIChat,
  validatePairing,
} from '../../core/index.js';

// Chat Completions requests as `openai` SDK callers build them: system or developer prompts, user
// text and image parts, assistant replies as the SDK returns them (null content, refusal,
// annotations, parallel tool calls), tool results as strings or text parts, request fields Spillway
// does not read.

type Json = Record<string, unknown>;

const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 60 }) },
  { weight: 1, arbitrary: fc.constant('  ✓ src/core/index.test.ts (12 tests) 40ms\n'.repeat(40)) },
);
const userContent = fc.oneof(
  text,
  fc.array(
    fc.oneof(
      text.map((value) => ({ type: 'text', text: value })),
      fc.constant({
        type: 'image_url',
        image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' },
      }),
    ),
    { minLength: 1, maxLength: 3 },
  ),
);
const turn = fc.record({
  text: fc.option(text, { nil: null }),
  calls: fc.array(
    fc.tuple(
      fc.constantFrom('read_file', 'search', 'run'),
      fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 10 }), { maxKeys: 2 }),
    ),
    { maxLength: 3 },
  ),
  results: fc.array(
    fc.oneof(
      text,
      fc.array(
        text.map((value) => ({ type: 'text', text: value })),
        { minLength: 1, maxLength: 2 },
      ),
    ),
    { minLength: 3, maxLength: 3 },
  ),
  sdkFields: fc.boolean(),
  followUp: fc.option(userContent, { nil: undefined }),
});

const bodyArbitrary: fc.Arbitrary<Json> = fc
  .record({
    developer: fc.boolean(),
    system: text,
    task: userContent,
    turns: fc.array(turn, { maxLength: 12 }),
    pending: fc.boolean(),
    temperature: fc.option(fc.double({ min: 0, max: 2, noNaN: true }), { nil: undefined }),
    maxTokens: fc.option(fc.integer({ min: 1, max: 4_096 }), { nil: undefined }),
  })
  .map(({ developer, system, task, turns, pending, temperature, maxTokens }) => {
    const messages: Json[] = [
      { role: developer ? 'developer' : 'system', content: system },
      { role: 'user', content: task },
    ];
    turns.forEach((shape, turnIndex) => {
      const calls = shape.calls.map(([name, args], index) => ({
        id: `call_${turnIndex}_${index}`,
        type: 'function',
        function: { name, arguments: JSON.stringify(args) },
      }));
      const assistant: Json = {
        role: 'assistant',
        content: calls.length > 0 ? shape.text : (shape.text ?? ''),
      };
      if (calls.length > 0) assistant.tool_calls = calls;
      if (shape.sdkFields) Object.assign(assistant, { refusal: null, annotations: [] });
      messages.push(assistant);
      if (turnIndex === turns.length - 1 && pending && calls.length > 0) return;
      for (const [index, call] of calls.entries())
        messages.push({ role: 'tool', tool_call_id: call.id, content: shape.results[index % 3] });
      if (shape.followUp !== undefined) messages.push({ role: 'user', content: shape.followUp });
    });
    const body: Json = { model: 'gpt-4o', messages, stream_options: { include_usage: true } };
    if (temperature !== undefined) body.temperature = temperature;
    if (maxTokens !== undefined) body.max_completion_tokens = maxTokens;
    return body;
  });

/** Every tool message answers a call made earlier; every call but the newest assistant's is answered. */
function checkPairing(messages: Json[]): void {
  const called = new Set<string>();
  const answered = new Set<string>();
  let newest: string[] = [];
  for (const message of messages) {
    if (message.role === 'assistant') {
      newest = ((message.tool_calls as Json[] | undefined) ?? []).map((call) => call.id as string);
      for (const id of newest) called.add(id);
    }
    if (message.role === 'tool') {
      expect(called.has(message.tool_call_id as string)).toBe(true);
      answered.add(message.tool_call_id as string);
    }
  }
  for (const id of called) if (!newest.includes(id)) expect(answered.has(id)).toBe(true);
}

describe('OpenAI Chat request ⇄ transcript (the openai adapter’s path)', () => {
  it('writes an unchanged request back exactly, every message the caller’s own object', () => {
    fc.assert(
      fc.property(bodyArbitrary, (body) => {
        const written = toOpenAIChat(fromOpenAIChat(body));
        expect(written).toEqual(body);
        const messages = written.messages as Json[];
        for (const [index, message] of messages.entries())
          expect(message).toBe((body.messages as Json[])[index]);
      }),
      { numRuns: 200 },
    );
  });

  it('reads a paired request into a transcript whose pairing validates', () => {
    fc.assert(
      fc.property(bodyArbitrary, (body) => {
        expect(validatePairing(fromOpenAIChat(body).messages).issues).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps tool calls with their results, and the caller’s messages in order, when fitting prunes', () => {
    fc.assert(
      fc.property(bodyArbitrary, fc.integer({ min: 1_500, max: 12_000 }), (body, window) => {
        const manager = new ContextWindowManager({ contextLength: window, outputCap: 256 });
        let written: Json;
        try {
          written = toOpenAIChat(manager.fit(fromOpenAIChat(body)).request);
        } catch (error) {
          expect(ContextTruncatedError.isInstance(error)).toBe(true);
          return;
        }
        const original = body.messages as Json[];
        const messages = written.messages as Json[];
        checkPairing(messages);
        expect(messages[0]).toBe(original[0]);
        const kept = messages
          .filter((message) => original.includes(message))
          .map((message) => original.indexOf(message));
        expect(kept).toEqual([...kept].sort((a, b) => a - b));
        for (const message of messages)
          if (!original.includes(message)) expect(['user', 'tool']).toContain(message.role);
        expect(written.temperature).toBe(body.temperature);
        expect(written.stream_options).toEqual(body.stream_options);
      }),
      { numRuns: 150 },
    );
  });
});
