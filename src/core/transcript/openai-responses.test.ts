import { describe, expect, it } from 'vitest';
import { SpillwayError } from '../errors/index.js';
import { toAnthropic } from './anthropic-messages.js';
import { detectFormat } from './detect-format.js';
import { toOpenAIChat } from './openai-chat.js';
import { fromResponses, toResponses } from './openai-responses.js';
import { readRequest } from './read-request.js';
import { splitTurns } from './split-turns.js';
import { fitThinkingBudget } from './thinking-budget.js';
import type { AssistantMessage, ToolMessage } from './types.js';
import { validatePairing } from './validate-pairing.js';

/** A Codex-style request: instructions, a developer message, reasoning, shell calls and outputs. */
const codexRequest = {
  model: 'gpt-5-codex',
  instructions: 'You are a coding agent.',
  input: [
    {
      type: 'message',
      role: 'developer',
      content: [{ type: 'input_text', text: '<permissions>…</permissions>' }],
    },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'List the files.' }] },
    {
      type: 'reasoning',
      id: 'rs_1',
      summary: [{ type: 'summary_text', text: 'I should run ls.' }],
      encrypted_content: 'gAAAAB…',
    },
    { type: 'function_call', call_id: 'call_1', name: 'shell', arguments: '{"command":["ls"]}' },
    { type: 'function_call_output', call_id: 'call_1', output: 'a.txt\nb.txt' },
    { type: 'custom_tool_call', call_id: 'call_2', name: 'apply_patch', input: '*** Begin Patch' },
    { type: 'custom_tool_call_output', call_id: 'call_2', output: 'Done' },
    {
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'Two files.', annotations: [] }],
    },
  ],
  tools: [
    {
      type: 'function',
      name: 'shell',
      description: 'Run',
      parameters: { type: 'object', properties: {} },
      strict: false,
    },
    { type: 'custom', name: 'apply_patch', format: { type: 'grammar' } },
    { type: 'web_search' },
  ],
  max_output_tokens: 4_000,
  stream: true,
  store: false,
  reasoning: { effort: 'medium', summary: 'auto' },
  include: ['reasoning.encrypted_content'],
};

describe('fromResponses / toResponses', () => {
  it('round-trips a request it did not change, item for item', () => {
    const request = fromResponses(codexRequest);
    expect(request.format).toBe('responses');
    expect(request.maxTokens).toBe(4_000);
    expect(request.tools.map((tool) => tool.name)).toEqual(['shell', 'apply_patch', 'web_search']);
    expect(toResponses(request)).toEqual(codexRequest);
  });

  it('keeps each call and its output in one turn, reasoning in the assistant message', () => {
    const { messages } = fromResponses(codexRequest);
    expect(messages.map((message) => message.role)).toEqual([
      'system',
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
    const first = messages[3] as AssistantMessage;
    expect(first.toolCalls?.map((call) => call.id)).toEqual(['call_1']);
    expect(first.content).toEqual([expect.objectContaining({ type: 'reasoning', text: 'I should run ls.' })]);
    expect((messages[6] as ToolMessage).toolCallId).toBe('call_2');
    expect(validatePairing(messages).ok).toBe(true);
    expect(splitTurns(messages).turns).toHaveLength(3);
  });

  it('writes changed messages from their fields and keeps the untouched ones verbatim', () => {
    const request = fromResponses(codexRequest);
    const output = request.messages[4] as ToolMessage;
    request.messages[4] = { ...output, content: '[elided]' };
    const body = toResponses(request);
    const items = body.input as unknown[];
    expect(items[4]).toEqual({ type: 'function_call_output', call_id: 'call_1', output: '[elided]' });
    expect(items[2]).toBe(codexRequest.input[2]);
    expect(items[3]).toBe(codexRequest.input[3]);
  });

  it('writes a rebuilt assistant message as reasoning, text and call items, in that order', () => {
    const request = fromResponses(codexRequest);
    const assistant = request.messages[3] as AssistantMessage;
    request.messages[3] = {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'short', extra: { id: 'rs_1', encrypted_content: 'x' } },
        { type: 'text', text: 'ok' },
      ],
      toolCalls: [{ ...assistant.toolCalls?.[0], id: 'call_1', name: 'shell', arguments: '{}' }],
    };
    const items = toResponses(request).input as Record<string, unknown>[];
    expect(items.slice(2, 5)).toEqual([
      {
        type: 'reasoning',
        id: 'rs_1',
        encrypted_content: 'x',
        summary: [{ type: 'summary_text', text: 'short' }],
      },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ok', annotations: [] }] },
      { type: 'function_call', call_id: 'call_1', name: 'shell', arguments: '{}' },
    ]);
  });

  it('reads text input and instructions, and writes them back in place', () => {
    const body = { model: 'gpt-5', instructions: 'Be brief.', input: 'hi', max_output_tokens: 100 };
    const request = fromResponses(body);
    expect(request.messages).toEqual([
      { role: 'system', content: 'Be brief.', wire: { instructions: true } },
      { role: 'user', content: 'hi', wire: { stringContent: true } },
    ]);
    expect(toResponses({ ...request, maxTokens: 50 })).toEqual({ ...body, max_output_tokens: 50 });
  });

  it('keeps previous_response_id and other unknown fields', () => {
    const body = {
      model: 'gpt-5',
      previous_response_id: 'resp_1',
      input: [{ role: 'user', content: 'go on' }],
    };
    expect(fromResponses(body).extra).toEqual({ previous_response_id: 'resp_1' });
    expect(toResponses(fromResponses(body))).toEqual(body);
  });

  it('is detected from "input" and read by readRequest', () => {
    expect(detectFormat(codexRequest)).toBe('responses');
    expect(readRequest(JSON.stringify(codexRequest)).format).toBe('responses');
  });

  it('converts to Chat Completions and Anthropic Messages for counting', () => {
    const request = fromResponses(codexRequest);
    const chat = toOpenAIChat(request);
    expect(chat.messages.map((message) => message.role)).toEqual([
      'system',
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(toAnthropic(request).system).toBeDefined();
  });

  it('rejects an item that is not an object, and a role it does not know, naming the item', () => {
    expect(() => fromResponses({ input: ['x'] })).toThrow(/input item 0/);
    expect(() => fromResponses({ input: [{ role: 'tool', content: 'x' }] })).toThrow(SpillwayError);
    expect(() => fromResponses({ input: 7 })).toThrow(/"input" must be/);
    expect(() => fromResponses({ input: [], max_output_tokens: -1 })).toThrow(/max_output_tokens/);
  });
});

describe('fitThinkingBudget', () => {
  it('keeps a budget below the cap, lowers one that is not, and drops thinking below the minimum', () => {
    const thinking = { type: 'enabled', budget_tokens: 31_999 };
    expect(fitThinkingBudget(thinking, 32_000)).toBe(thinking);
    expect(fitThinkingBudget(thinking, 31_175)).toEqual({ type: 'enabled', budget_tokens: 31_174 });
    expect(fitThinkingBudget(thinking, 1_025)).toEqual({ type: 'enabled', budget_tokens: 1_024 });
    expect(fitThinkingBudget(thinking, 1_024)).toBeUndefined();
    expect(fitThinkingBudget({ type: 'adaptive' }, 10)).toEqual({ type: 'adaptive' });
  });

  it('is applied when an Anthropic request is written with a lowered max_tokens', () => {
    const request = readRequest(
      {
        model: 'claude',
        max_tokens: 32_000,
        thinking: { type: 'enabled', budget_tokens: 31_999 },
        messages: [{ role: 'user', content: 'hi' }],
      },
      { format: 'anthropic' },
    );
    expect(toAnthropic({ ...request, maxTokens: 31_175 }).thinking).toEqual({
      type: 'enabled',
      budget_tokens: 31_174,
    });
    expect(toAnthropic({ ...request, maxTokens: 800 })).not.toHaveProperty('thinking');
  });

  it('leaves the thinking of a request whose cap was not changed as it came, valid or not', () => {
    const body = {
      model: 'claude',
      max_tokens: 1_000,
      thinking: { type: 'enabled', budget_tokens: 2_000 },
      messages: [{ role: 'user', content: 'hi' }],
    };
    expect(toAnthropic(readRequest(body, { format: 'anthropic' }))).toEqual(body);
  });
});
