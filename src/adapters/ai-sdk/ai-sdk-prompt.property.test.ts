import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ContextTruncatedError,
  ContextWindowManager,
  contentText,
  fromAnthropic,
  fromOpenAIChat,
  type Message,
  toAnthropic,
  toOpenAIChat,
  validatePairing,
} from '../../core/index.js';
import type { LanguageModelMessage, LanguageModelPrompt } from './ai-sdk-types.js';
import { fromAISDKPrompt } from './from-ai-sdk-prompt.js';
import { toAISDKPrompt } from './to-ai-sdk-prompt.js';

// Generators of AI SDK prompts (`LanguageModelV3Prompt`) with every part kind: text, files,
// reasoning with signatures, client tool calls with every output type, provider-executed calls and
// results, tool-approval responses, providerOptions on messages and parts, pending calls.

const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 80 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constant('line of tool output\n'.repeat(40)) },
);
const providerOptions = fc.option(
  fc.oneof(
    fc.constant({ anthropic: { cacheControl: { type: 'ephemeral' } } }),
    fc.record({ openai: fc.record({ reasoningEffort: fc.constantFrom('low', 'high') }) }),
  ),
  { nil: undefined },
);
const signature = fc.option(
  fc.string({ minLength: 8, maxLength: 40 }).map((value) => ({ anthropic: { signature: value } })),
  { nil: undefined },
);
const json = fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.parse(JSON.stringify(value)) as unknown);
const file = fc.oneof(
  fc.constant({ type: 'file' as const, mediaType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUg==' }),
  fc.constant({
    type: 'file' as const,
    mediaType: 'application/pdf',
    data: new URL('https://example.com/spec.pdf'),
    filename: 'spec.pdf',
  }),
);

function withOptions<T extends object>(value: T, options: object | undefined): T {
  return options === undefined ? value : { ...value, providerOptions: options };
}

const output = fc.oneof(
  text.map((value) => ({ type: 'text' as const, value })),
  text.map((value) => ({ type: 'error-text' as const, value })),
  json.map((value) => ({ type: 'json' as const, value })),
  json.map((value) => ({ type: 'error-json' as const, value })),
  fc
    .option(text, { nil: undefined })
    .map((reason) =>
      reason === undefined
        ? { type: 'execution-denied' as const }
        : { type: 'execution-denied' as const, reason },
    ),
  fc
    .array(
      fc.oneof(
        text.map((value) => ({ type: 'text' as const, text: value })),
        fc.constant({ type: 'image-data' as const, data: 'R0lGODlhAQABAAAAACw=', mediaType: 'image/gif' }),
      ),
      { minLength: 1, maxLength: 3 },
    )
    .map((value) => ({ type: 'content' as const, value })),
);

type AssistantItem = 'text' | 'reasoning' | 'call' | 'provider' | 'file';

const turn = fc.record({
  items: fc.array(fc.constantFrom<AssistantItem>('text', 'reasoning', 'call', 'call', 'provider', 'file'), {
    maxLength: 6,
  }),
  texts: fc.array(text, { minLength: 6, maxLength: 6 }),
  options: fc.array(providerOptions, { minLength: 6, maxLength: 6 }),
  signatures: fc.array(signature, { minLength: 6, maxLength: 6 }),
  inputs: fc.array(fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 3 }), {
    minLength: 6,
    maxLength: 6,
  }),
  outputs: fc.array(output, { minLength: 6, maxLength: 6 }),
  approval: fc.boolean(),
  messageOptions: providerOptions,
  followUp: fc.option(text, { nil: undefined }),
});

const promptArbitrary: fc.Arbitrary<LanguageModelPrompt> = fc
  .record({
    system: fc.option(fc.tuple(text, providerOptions), { nil: undefined }),
    task: fc.tuple(text, fc.option(file, { nil: undefined }), providerOptions),
    turns: fc.array(turn, { maxLength: 12 }),
    pending: fc.boolean(),
  })
  .map(({ system, task, turns, pending }) => {
    const prompt: LanguageModelMessage[] = [];
    if (system)
      prompt.push(withOptions({ role: 'system', content: system[0] }, system[1]) as LanguageModelMessage);
    prompt.push(
      withOptions(
        { role: 'user', content: [{ type: 'text', text: task[0] }, ...(task[1] ? [task[1]] : [])] },
        task[2],
      ) as LanguageModelMessage,
    );
    turns.forEach((shape, turnIndex) => {
      const content: unknown[] = [];
      const results: unknown[] = [];
      shape.items.forEach((item, index) => {
        const id = `call_${turnIndex}_${index}`;
        const at = index % 6;
        if (item === 'text')
          content.push(withOptions({ type: 'text', text: shape.texts[at] }, shape.options[at]));
        if (item === 'reasoning')
          content.push(withOptions({ type: 'reasoning', text: shape.texts[at] }, shape.signatures[at]));
        if (item === 'file')
          content.push(
            withOptions({ type: 'file', mediaType: 'image/jpeg', data: '/9j/4AAQ' }, shape.options[at]),
          );
        if (item === 'call') {
          content.push(
            withOptions(
              { type: 'tool-call', toolCallId: id, toolName: `tool_${at}`, input: shape.inputs[at] },
              shape.options[at],
            ),
          );
          results.push(
            withOptions(
              { type: 'tool-result', toolCallId: id, toolName: `tool_${at}`, output: shape.outputs[at] },
              shape.options[at],
            ),
          );
        }
        if (item === 'provider') {
          content.push({
            type: 'tool-call',
            toolCallId: `srv_${id}`,
            toolName: 'web_search',
            input: { query: shape.texts[at] },
            providerExecuted: true,
          });
          content.push({
            type: 'tool-result',
            toolCallId: `srv_${id}`,
            toolName: 'web_search',
            output: { type: 'json', value: { hits: 3 } },
          });
        }
      });
      prompt.push(withOptions({ role: 'assistant', content }, shape.messageOptions) as LanguageModelMessage);
      const isLast = turnIndex === turns.length - 1;
      if (isLast && pending && results.length > 0) return;
      if (shape.approval)
        results.push({
          type: 'tool-approval-response',
          approvalId: `approval_${turnIndex}`,
          approved: true,
          reason: 'ok',
        });
      if (results.length > 0)
        prompt.push(
          withOptions({ role: 'tool', content: results }, shape.messageOptions) as LanguageModelMessage,
        );
      if (shape.followUp !== undefined)
        prompt.push({ role: 'user', content: [{ type: 'text', text: shape.followUp }] });
    });
    return prompt;
  });

/** Copies of the messages and their part lists: same fields, no identity with what the reader made. */
function rewritten(messages: readonly Message[]): Message[] {
  return messages.map(
    (message) =>
      ({
        ...message,
        ...(Array.isArray(message.content) ? { content: message.content.map((part) => ({ ...part })) } : {}),
        ...(message.role === 'assistant' && message.toolCalls
          ? { toolCalls: message.toolCalls.map((call) => ({ ...call })) }
          : {}),
      }) as Message,
  );
}

type Part = { type: string; [key: string]: unknown };
function partsOf(message: LanguageModelMessage): Part[] {
  return typeof message.content === 'string'
    ? [{ type: 'text', text: message.content }]
    : (message.content as unknown as Part[]);
}

/** Every tool result answers a call made earlier in the prompt; every call but the newest turn's is answered. */
function checkPairing(prompt: LanguageModelPrompt): void {
  const called = new Set<string>();
  const answered = new Set<string>();
  let newestCalls: string[] = [];
  for (const message of prompt) {
    for (const part of partsOf(message)) {
      if (part.type === 'tool-call' && part.providerExecuted !== true) called.add(part.toolCallId as string);
      if (part.type === 'tool-result' && message.role === 'tool') {
        expect(called.has(part.toolCallId as string)).toBe(true);
        answered.add(part.toolCallId as string);
      }
    }
    if (message.role === 'assistant')
      newestCalls = partsOf(message).flatMap((part) =>
        part.type === 'tool-call' && part.providerExecuted !== true ? [part.toolCallId as string] : [],
      );
  }
  for (const id of called) if (!newestCalls.includes(id)) expect(answered.has(id)).toBe(true);
}

/** What a prompt says, as strings: texts, calls with their inputs, results with their text, files, approvals. */
function inventory(prompt: LanguageModelPrompt): string[] {
  const items: string[] = [];
  for (const message of prompt)
    for (const part of partsOf(message)) {
      if (part.type === 'text' || part.type === 'reasoning') {
        if (part.text !== '') items.push(`text:${part.text}`);
      } else if (part.type === 'tool-call')
        items.push(`call:${part.toolCallId}:${part.toolName}:${JSON.stringify(part.input)}`);
      else if (part.type === 'tool-result')
        items.push(`result:${part.toolCallId}:${resultText(part.output)}`);
      else if (part.type === 'file') items.push(`file:${part.mediaType}`);
      else items.push(`${part.type}:${JSON.stringify(part)}`);
    }
  return items.sort();
}

function resultText(output: unknown): string {
  const value = output as { type: string; value?: unknown; reason?: string };
  if (value.type === 'text' || value.type === 'error-text') return value.value as string;
  if (value.type === 'json' || value.type === 'error-json') return JSON.stringify(value.value);
  if (value.type === 'execution-denied') return value.reason ?? '';
  return contentText(
    (value.value as Part[]).flatMap((item) =>
      item.type === 'text' ? [{ type: 'text', text: item.text as string }] : [],
    ),
  );
}

describe('AI SDK prompt ⇄ transcript', () => {
  it('writes back the caller’s own message objects, in order, for a prompt read and left unchanged', () => {
    fc.assert(
      fc.property(promptArbitrary, (prompt) => {
        const request = fromAISDKPrompt({ prompt });
        const written = toAISDKPrompt(request);
        expect(written).toHaveLength(prompt.length);
        for (const [index, message] of written.entries()) expect(message).toBe(prompt[index]);
      }),
      { numRuns: 200 },
    );
  });

  it('reads a paired prompt into a transcript whose pairing validates', () => {
    fc.assert(
      fc.property(promptArbitrary, (prompt) => {
        const { messages } = fromAISDKPrompt({ prompt });
        const pairing = validatePairing(messages);
        expect(pairing.issues).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('rebuilds every message from its fields alone when the objects were replaced (nothing dropped)', () => {
    fc.assert(
      fc.property(promptArbitrary, (prompt) => {
        const request = fromAISDKPrompt({ prompt });
        expect(toAISDKPrompt({ messages: rewritten(request.messages) })).toEqual(prompt);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps every tool call with its results when fitting prunes the prompt to a small window', () => {
    fc.assert(
      fc.property(promptArbitrary, fc.integer({ min: 1_500, max: 12_000 }), (prompt, window) => {
        const manager = new ContextWindowManager({ contextLength: window, outputCap: 256 });
        const request = fromAISDKPrompt({ prompt, model: 'gpt-4o' });
        let fitted: LanguageModelPrompt;
        try {
          fitted = toAISDKPrompt(manager.fit(request).request);
        } catch (error) {
          expect(ContextTruncatedError.isInstance(error)).toBe(true);
          return;
        }
        checkPairing(fitted);
        // Kept messages are the caller's objects, in their order; the rest are markers and compressed results.
        const kept = fitted.filter((message) => prompt.includes(message));
        expect(kept.map((message) => prompt.indexOf(message))).toEqual(
          kept.map((message) => prompt.indexOf(message)).sort((a, b) => a - b),
        );
        expect(fitted[0]).toBe(prompt[0]);
        for (const message of fitted)
          if (!prompt.includes(message)) expect(['user', 'tool']).toContain(message.role);
      }),
      { numRuns: 150 },
    );
  });
});

describe('AI SDK prompt ⇄ transcript ⇄ OpenAI Chat / Anthropic Messages', () => {
  it('carries every text, file, tool call and tool result across either wire format, paired', () => {
    fc.assert(
      fc.property(promptArbitrary, fc.constantFrom('openai', 'anthropic'), (prompt, format) => {
        const request = fromAISDKPrompt({ prompt, model: 'gpt-4o' });
        const back =
          format === 'openai' ? fromOpenAIChat(toOpenAIChat(request)) : fromAnthropic(toAnthropic(request));
        expect(validatePairing(back.messages).issues).toEqual([]);
        const written = toAISDKPrompt(back);
        checkPairing(written);
        expect(inventory(written)).toEqual(inventory(prompt));
      }),
      { numRuns: 200 },
    );
  });
});
