/**
 * Library misuse at the entry points: `null`, wrong types, and wire bodies where a normalized request
 * belongs. Every one is a `SpillwayError` whose message says what to pass, never a raw `TypeError`
 * from deep inside.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertPairing,
  CHATML_TEMPLATE,
  ContextWindowManager,
  ConversationDriver,
  classifyOverflow,
  compactTranscript,
  estimateTokens,
  fromAnthropic,
  fromOpenAIChat,
  readRequest,
  recoverFromOverflow,
  SpillwayError,
  splitTurns,
  toAnthropic,
  toOpenAIChat,
  validatePairing,
  writeRequest,
} from './index.js';

const openaiBody = {
  model: 'gpt-4o',
  max_tokens: 256,
  messages: [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Read the file.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'export const a = 1;' },
  ],
};
const anthropicBody = {
  model: 'claude-sonnet-4-5',
  max_tokens: 256,
  system: 'You are a coding agent.',
  messages: [
    { role: 'user', content: 'Read the file.' },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } }],
    },
    {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'export const a = 1;' }],
    },
  ],
};

/** Runs `call` and returns what it threw, or undefined. */
function thrown(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  return undefined;
}

function expectSpillwayError(call: () => unknown, code: string, says: RegExp): void {
  const error = thrown(call);
  expect(SpillwayError.isInstance(error), String(error)).toBe(true);
  expect((error as SpillwayError).code).toBe(code);
  expect((error as SpillwayError).message).toMatch(says);
}

describe('the entry points, given what they do not take', () => {
  it('say to convert a wire body first, naming the converter', () => {
    const manager = new ContextWindowManager({ contextLength: 8_192 });
    expectSpillwayError(
      () => manager.fit(openaiBody as never),
      'invalid_transcript',
      /pass fromOpenAIChat\(body\)/,
    );
    expectSpillwayError(
      () => manager.fit(anthropicBody as never),
      'invalid_transcript',
      /pass fromAnthropic\(body\)/,
    );
    expectSpillwayError(
      () => estimateTokens(openaiBody as never),
      'invalid_transcript',
      /fromOpenAIChat\(body\)/,
    );
    expectSpillwayError(
      () => estimateTokens(openaiBody.messages as never),
      'invalid_transcript',
      /"tool_calls".*fromOpenAIChat/,
    );
    expectSpillwayError(
      () => estimateTokens(anthropicBody.messages as never),
      'invalid_transcript',
      /"tool_use" block.*fromAnthropic/,
    );
    expectSpillwayError(
      () => toAnthropic(openaiBody as never),
      'invalid_transcript',
      /fromOpenAIChat\(body\)/,
    );
    expectSpillwayError(
      () => validatePairing(openaiBody.messages as never),
      'invalid_transcript',
      /tool_calls/,
    );
    // Converted first, the same bodies are fine.
    expect(manager.fit(fromOpenAIChat(openaiBody)).request.messages).toHaveLength(4);
    expect(estimateTokens(fromAnthropic(anthropicBody)).total).toBeGreaterThan(0);
  });

  it('say what they take when given null, nothing, or the wrong type', () => {
    expectSpillwayError(
      () => estimateTokens(null as never),
      'invalid_argument',
      /estimateTokens takes a text, an array of normalized messages, or a request/,
    );
    expectSpillwayError(() => estimateTokens(42 as never), 'invalid_argument', /got a number/);
    expectSpillwayError(() => estimateTokens('text', null as never), 'invalid_argument', /options/);
    expectSpillwayError(
      () => new ContextWindowManager(null as never),
      'invalid_config',
      /takes an options object/,
    );
    // A counter that is not one, or names a template with a cost that is not a number of tokens.
    expectSpillwayError(
      () => new ContextWindowManager({ tokenizer: 5 as never }),
      'invalid_config',
      /tokenizer must be a counter/,
    );
    expectSpillwayError(
      () => new ContextWindowManager({ exact: { name: 'mine' } as never }),
      'invalid_config',
      /exact must have a string name and a count\(text\) function/,
    );
    expectSpillwayError(
      () =>
        new ContextWindowManager({
          counter: { name: 'mine', count: () => 1, template: { ...CHATML_TEMPLATE, toolCall: Number.NaN } },
        }),
      'invalid_config',
      /counter template: toolCall must be a whole number of tokens, at least 0, got NaN/,
    );
    // A counter whose count is not a number of tokens stops the fit, naming it.
    const nanCounter = new ContextWindowManager({ counter: { name: 'mine/nan', count: () => Number.NaN } });
    expectSpillwayError(
      () => nanCounter.fit(fromOpenAIChat(openaiBody)),
      'invalid_config',
      /the counter mine\/nan gave NaN for a text of \d+ characters/,
    );
    const manager = new ContextWindowManager({ contextLength: 8_192 });
    expectSpillwayError(
      () => manager.fit(undefined as never),
      'invalid_argument',
      /fit takes a normalized request/,
    );
    expectSpillwayError(() => manager.observe(null as never), 'invalid_argument', /promptTokens/);
    expectSpillwayError(
      () => toOpenAIChat(null as never),
      'invalid_argument',
      /toOpenAIChat takes a normalized request/,
    );
    expectSpillwayError(() => writeRequest({} as never), 'invalid_transcript', /writeRequest/);
    expectSpillwayError(() => splitTurns(null as never), 'invalid_transcript', /splitTurns takes an array/);
    expectSpillwayError(
      () => readRequest(openaiBody, { format: 'cohere' as never }),
      'invalid_argument',
      /format/,
    );
  });
});

describe('the entry points, given anything at all', () => {
  const entries: Array<[string, (value: unknown) => unknown]> = [
    ['estimateTokens', (value) => estimateTokens(value as never)],
    ['estimateTokens options', (value) => estimateTokens('text', value as never)],
    ['new ContextWindowManager', (value) => new ContextWindowManager(value as never)],
    ['new ConversationDriver', (value) => new ConversationDriver(value as never)],
    ['fit', (value) => new ContextWindowManager({ contextLength: 8_192 }).fit(value as never)],
    ['observe', (value) => new ContextWindowManager().observe(value as never)],
    ['fromOpenAIChat', (value) => fromOpenAIChat(value)],
    ['fromAnthropic', (value) => fromAnthropic(value)],
    ['readRequest', (value) => readRequest(value)],
    ['toOpenAIChat', (value) => toOpenAIChat(value as never)],
    ['toAnthropic', (value) => toAnthropic(value as never)],
    ['writeRequest', (value) => writeRequest(value as never)],
    ['splitTurns', (value) => splitTurns(value as never)],
    ['validatePairing', (value) => validatePairing(value as never)],
    ['assertPairing', (value) => assertPairing(value as never)],
    ['classifyOverflow', (value) => classifyOverflow(value as never)],
  ];
  it('recoverFromOverflow rejects, with nothing but SpillwayError, what it cannot recover', async () => {
    const manager = new ContextWindowManager({ contextLength: 8_192 });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.anything(),
          fc.record({ request: fc.anything(), overflow: fc.anything(), manager: fc.constant(manager) }),
        ),
        async (value) => {
          const error = await Promise.resolve()
            .then(() => recoverFromOverflow(value as never))
            .then(
              () => undefined,
              (caught: unknown) => caught,
            );
          if (error !== undefined) expect(SpillwayError.isInstance(error), String(error)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('compactTranscript rejects, with nothing but SpillwayError, what it cannot compact', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.anything(), fc.record({ messages: fc.anything(), summarize: fc.anything() })),
        async (value) => {
          const error = await compactTranscript(value as never).then(
            () => undefined,
            (caught: unknown) => caught,
          );
          if (error !== undefined) expect(SpillwayError.isInstance(error), String(error)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
  /** Values shaped like requests and messages, with every field possibly wrong. */
  const messageLike = fc.record(
    {
      role: fc.oneof(fc.constantFrom('system', 'user', 'assistant', 'tool', 'developer'), fc.anything()),
      content: fc.anything(),
      toolCallId: fc.anything(),
      toolCalls: fc.anything(),
    },
    { requiredKeys: [] },
  );
  const requestLike = fc.record(
    {
      format: fc.oneof(fc.constantFrom('openai', 'anthropic'), fc.anything()),
      messages: fc.oneof(fc.array(messageLike, { maxLength: 4 }), fc.anything()),
      tools: fc.anything(),
      extra: fc.anything(),
      model: fc.anything(),
      maxTokens: fc.anything(),
    },
    { requiredKeys: [] },
  );
  const hostile = fc.oneof(fc.anything(), requestLike, fc.array(messageLike, { maxLength: 4 }));

  it.each(entries)('%s throws nothing but SpillwayError', (_name, call) => {
    fc.assert(
      fc.property(hostile, (value) => {
        const error = thrown(() => call(value));
        if (error !== undefined) expect(SpillwayError.isInstance(error), String(error)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
