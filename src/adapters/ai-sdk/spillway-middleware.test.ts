import { APICallError, generateText, type ModelMessage, streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import type { AdapterEvent } from '../shared/adapter-options.js';
import type {
  GenerateResult,
  LanguageModelCallOptions,
  LanguageModelPrompt,
  StreamPart,
} from './ai-sdk-types.js';
import { spillwayMiddleware } from './spillway-middleware.js';

function reply(text: string, promptTokens = 100): GenerateResult {
  return {
    content: [{ type: 'text', text }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: {
      inputTokens: { total: promptTokens, noCache: promptTokens, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 5, text: 5, reasoning: 0 },
    },
    warnings: [],
  };
}

/** The 400 body OpenAI sends when the prompt alone exceeds the window (corpus openai-ctx-messages-06). */
function overflowError(window: number, input: number): APICallError {
  return new APICallError({
    message: 'Bad Request',
    url: 'https://api.openai.com/v1/chat/completions',
    requestBodyValues: {},
    statusCode: 400,
    responseBody: JSON.stringify({
      error: {
        message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${input} tokens. Please reduce the length of the messages.`,
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    }),
    isRetryable: false,
  });
}

/** A coding-agent history: a task, then `turns` tool calls each answered with a long output. */
function history(turns: number): ModelMessage[] {
  const messages: ModelMessage[] = [{ role: 'user', content: 'Find out why the tests fail.' }];
  for (let turn = 0; turn < turns; turn++) {
    const toolCallId = `call_${turn}`;
    messages.push({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'I should read the next file.' },
        { type: 'tool-call', toolCallId, toolName: 'read_file', input: { path: `src/file-${turn}.ts` } },
      ],
    });
    messages.push({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId,
          toolName: 'read_file',
          output: { type: 'text', value: `export const value${turn} = ${turn};\n`.repeat(60) },
        },
      ],
    });
  }
  return messages;
}

/**
 * Whether a call is a send of the conversation (not a compaction summary the recovery chain asked
 * the model for): its first user message is the task itself.
 */
function isTurn(call: LanguageModelCallOptions): boolean {
  const first = call.prompt.find((message) => message.role === 'user');
  const part = first && typeof first.content !== 'string' ? first.content[0] : undefined;
  return part?.type === 'text' && part.text === 'Find out why the tests fail.';
}

function toolCallIds(prompt: LanguageModelPrompt, type: 'tool-call' | 'tool-result'): string[] {
  return prompt.flatMap((message) =>
    typeof message.content === 'string'
      ? []
      : message.content.flatMap((part) => (part.type === type ? [part.toolCallId] : [])),
  );
}

describe('spillwayMiddleware', () => {
  it('fills in maxOutputTokens from the catalog limits of the model’s provider and id', async () => {
    const calls: LanguageModelCallOptions[] = [];
    const events: AdapterEvent[] = [];
    const model = new MockLanguageModelV3({
      provider: 'openai.chat',
      modelId: 'gpt-4o',
      doGenerate: async (params) => {
        calls.push(params);
        return reply('hello');
      },
    });
    const wrapped = wrapLanguageModel({
      model,
      middleware: spillwayMiddleware({ onEvent: (event) => events.push(event) }),
    });
    const result = await generateText({ model: wrapped, prompt: 'hi' });
    expect(result.text).toBe('hello');
    expect(calls[0]?.maxOutputTokens).toBe(16_384);
    expect(events).toContainEqual(expect.objectContaining({ type: 'fit', window: 128_000, model: 'gpt-4o' }));
    expect(events).toContainEqual({ type: 'usage', model: 'gpt-4o', promptTokens: 100, completionTokens: 5 });
  });

  it('prunes whole turns to contextLength and keeps every tool call beside its result', async () => {
    const calls: LanguageModelCallOptions[] = [];
    const model = new MockLanguageModelV3({
      provider: 'openai.chat',
      modelId: 'gpt-4o',
      doGenerate: async (params) => {
        calls.push(params);
        return reply('done');
      },
    });
    const wrapped = wrapLanguageModel({
      model,
      middleware: spillwayMiddleware({ contextLength: 6_000, outputCap: 1_000 }),
    });
    await generateText({ model: wrapped, system: 'You are a coding agent.', messages: history(30) });
    const prompt = calls[0]?.prompt ?? [];
    expect(prompt[0]).toEqual({ role: 'system', content: 'You are a coding agent.' });
    expect(prompt[1]?.role).toBe('user');
    const calledIds = toolCallIds(prompt, 'tool-call');
    expect(calledIds.length).toBeGreaterThan(0);
    expect(calledIds.length).toBeLessThan(30);
    expect(toolCallIds(prompt, 'tool-result')).toEqual(calledIds);
    expect(calledIds.at(-1)).toBe('call_29');
    expect(calls[0]?.maxOutputTokens).toBeLessThanOrEqual(1_000);
  });

  it('recovers an overflow APICallError once and retries with a prompt that fits the stated window', async () => {
    const calls: LanguageModelCallOptions[] = [];
    const events: AdapterEvent[] = [];
    const model = new MockLanguageModelV3({
      provider: 'openai.chat',
      modelId: 'gpt-4o',
      doGenerate: async (params) => {
        calls.push(params);
        if (calls.length === 1) throw overflowError(8_000, 30_000);
        return reply('recovered');
      },
    });
    const wrapped = wrapLanguageModel({
      model,
      middleware: spillwayMiddleware({ onEvent: (event) => events.push(event) }),
    });
    const result = await generateText({ model: wrapped, messages: history(30), maxRetries: 0 });
    expect(result.text).toBe('recovered');
    // One refused send and one retry; the recovery chain may also have asked for summaries.
    const turns = calls.filter(isTurn);
    expect(turns).toHaveLength(2);
    const [first, second] = turns.map((call) => toolCallIds(call.prompt, 'tool-call'));
    expect(second?.length).toBeLessThan(first?.length ?? 0);
    expect(toolCallIds(turns[1]?.prompt ?? [], 'tool-result')).toEqual(second);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'overflow', kind: 'context', status: 400, model: 'gpt-4o' }),
    );
    const recovery = events.find((event) => event.type === 'recovery');
    expect(recovery).toBeDefined();
    expect(recovery && 'action' in recovery ? recovery.action : undefined).not.toBe('give_up');
  });

  it('passes other errors through unchanged and sends nothing more', async () => {
    let sends = 0;
    const limited = new APICallError({
      message: 'Rate limit reached for gpt-4o on requests per min (RPM)',
      url: 'https://api.openai.com/v1/chat/completions',
      requestBodyValues: {},
      statusCode: 429,
      responseBody:
        '{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}',
      isRetryable: true,
    });
    const model = new MockLanguageModelV3({
      provider: 'openai.chat',
      modelId: 'gpt-4o',
      doGenerate: async () => {
        sends++;
        throw limited;
      },
    });
    const wrapped = wrapLanguageModel({ model, middleware: spillwayMiddleware() });
    await expect(generateText({ model: wrapped, prompt: 'hi', maxRetries: 0 })).rejects.toBe(limited);
    expect(sends).toBe(1);
  });

  it('rejects with the provider’s error when the retry overflows too', async () => {
    const calls: LanguageModelCallOptions[] = [];
    const second = overflowError(8_000, 9_000);
    const model = new MockLanguageModelV3({
      provider: 'openai.chat',
      modelId: 'gpt-4o',
      doGenerate: async (params) => {
        calls.push(params);
        throw calls.length === 1 ? overflowError(8_000, 30_000) : second;
      },
    });
    const wrapped = wrapLanguageModel({ model, middleware: spillwayMiddleware() });
    await expect(generateText({ model: wrapped, messages: history(30), maxRetries: 0 })).rejects.toBe(second);
    expect(calls.filter(isTurn)).toHaveLength(2);
  });

  it('feeds the usage of a streamed reply back and recovers a stream that was refused', async () => {
    const calls: LanguageModelCallOptions[] = [];
    const events: AdapterEvent[] = [];
    const parts: StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'streamed' },
      { type: 'text-end', id: 't' },
      {
        type: 'finish',
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 4_321, noCache: 4_321, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 3, text: 3, reasoning: 0 },
        },
      },
    ];
    const model = new MockLanguageModelV3({
      provider: 'anthropic.messages',
      modelId: 'claude-sonnet-4-5',
      doStream: async (params) => {
        calls.push(params);
        if (calls.length === 1) throw overflowError(8_000, 30_000);
        return {
          stream: new ReadableStream({
            start(controller) {
              for (const part of parts) controller.enqueue(part);
              controller.close();
            },
          }),
        };
      },
    });
    const wrapped = wrapLanguageModel({
      model,
      middleware: spillwayMiddleware({ onEvent: (event) => events.push(event) }),
    });
    const result = streamText({ model: wrapped, messages: history(30), maxRetries: 0 });
    expect(await result.text).toBe('streamed');
    expect(calls.filter(isTurn)).toHaveLength(2);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'fit', window: 200_000, model: 'claude-sonnet-4-5' }),
    );
    expect(events).toContainEqual({
      type: 'usage',
      model: 'claude-sonnet-4-5',
      promptTokens: 4_321,
      completionTokens: 3,
    });
  });
});
