import { describe, expect, it } from 'vitest';
import { SpillwayError } from '../errors/index.js';
import { fromAnthropic, toAnthropic } from './anthropic-messages.js';
import { detectFormat } from './detect-format.js';
import { fromOpenAIChat, toOpenAIChat } from './openai-chat.js';
import { readRequest } from './read-request.js';

const openaiRequest = {
  model: 'gpt-4o',
  temperature: 0.2,
  parallel_tool_calls: true,
  max_completion_tokens: 2048,
  messages: [
    { role: 'developer', content: 'You are terse.' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Read a.ts' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
      ],
      name: 'dev',
    },
    {
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'export const a = 1;' },
    { role: 'assistant', content: 'a is 1', reasoning_content: 'looked at it' },
  ],
  tools: [
    {
      type: 'function',
      function: {
        name: 'read_file',
        description: 'Read a file',
        parameters: { type: 'object', properties: { path: { type: 'string' } } },
        strict: true,
      },
    },
  ],
  x_vendor: { keep: ['me'] },
};

const anthropicRequest = {
  model: 'claude-sonnet-4-5',
  max_tokens: 4096,
  system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
  thinking: { type: 'enabled', budget_tokens: 1024 },
  messages: [
    { role: 'user', content: 'Read a.ts and b.ts' },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'two files', signature: 'sig==' },
        { type: 'text', text: 'Reading both.' },
        { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } },
        {
          type: 'tool_use',
          id: 'toolu_2',
          name: 'read_file',
          input: { path: 'b.ts' },
          cache_control: { type: 'ephemeral' },
        },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: 'export const a = 1;' },
        {
          type: 'tool_result',
          tool_use_id: 'toolu_2',
          content: [{ type: 'text', text: 'missing' }],
          is_error: true,
        },
        { type: 'text', text: 'and summarize' },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'redacted_thinking', data: 'xyz' },
        { type: 'text', text: 'a is 1; b is missing' },
      ],
    },
  ],
  tools: [
    {
      name: 'read_file',
      description: 'Read a file',
      input_schema: { type: 'object', properties: { path: { type: 'string' } } },
    },
    { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
  ],
  metadata: { user_id: 'u1' },
};

describe('OpenAI Chat converter', () => {
  it('round-trips a request exactly, unknown fields included', () => {
    expect(toOpenAIChat(fromOpenAIChat(structuredClone(openaiRequest)))).toEqual(openaiRequest);
  });

  it('normalizes roles, tool calls and the reply cap', () => {
    const request = fromOpenAIChat(openaiRequest);
    expect(request.messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(request.messages[2]).toMatchObject({
      toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"a.ts"}' }],
    });
    expect(request.maxTokens).toBe(2048);
    expect(request.maxTokensField).toBe('max_completion_tokens');
    expect(request.tools[0]?.name).toBe('read_file');
  });

  it('rebuilds messages that were replaced, keeping their unknown fields', () => {
    const request = fromOpenAIChat(openaiRequest);
    request.messages = request.messages.map((message) => ({ ...message }));
    expect(toOpenAIChat(request)).toEqual(openaiRequest);
  });

  it('rejects unknown roles, deprecated function messages and tool messages without an id, naming the index', () => {
    const bad = (message: unknown) => () =>
      fromOpenAIChat({ messages: [{ role: 'user', content: 'x' }, message] });
    expect(bad({ role: 'robot', content: 'x' })).toThrow(/message 1 has unknown role "robot"/);
    expect(bad({ role: 'function', name: 'f', content: 'x' })).toThrow(/deprecated role "function"/);
    expect(bad({ role: 'tool', content: 'x' })).toThrow(/tool message 1 has no string "tool_call_id"/);
    expect(
      bad({ role: 'assistant', content: '', tool_calls: [{ function: { name: 'f', arguments: '{}' } }] }),
    ).toThrow(/no string "id"/);
  });

  it('rejects a body without messages and text that is not JSON', () => {
    expect(() => fromOpenAIChat({ model: 'x' })).toThrow(SpillwayError);
    expect(() => fromOpenAIChat('{"messages": [')).toThrow(/not valid JSON/);
  });
});

describe('Anthropic Messages converter', () => {
  it('round-trips a request exactly, thinking, cache_control and server tools included', () => {
    expect(toAnthropic(fromAnthropic(structuredClone(anthropicRequest)))).toEqual(anthropicRequest);
  });

  it('splits tool_result blocks into one tool message each and joins them back', () => {
    const request = fromAnthropic(anthropicRequest);
    expect(request.messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'user',
      'assistant',
    ]);
    expect(request.messages[4]).toMatchObject({ role: 'tool', toolCallId: 'toolu_2', isError: true });
    request.messages = request.messages.map((message) => ({ ...message }));
    expect(toAnthropic(request)).toEqual(anthropicRequest);
  });

  it('keeps the position of tool calls that sit between text blocks', () => {
    const body = {
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 't1', name: 'f', input: {} },
            { type: 'text', text: 'after' },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'r' }] },
      ],
    };
    const request = fromAnthropic(body);
    request.messages = request.messages.map((message) => ({ ...message }));
    expect(toAnthropic(request)).toEqual(body);
  });

  it('rejects a system role inside messages with a message that says where the system prompt goes', () => {
    expect(() => fromAnthropic({ messages: [{ role: 'system', content: 'x' }] })).toThrow(
      /system prompt goes in "system"/,
    );
  });
});

describe('across formats', () => {
  it('writes an OpenAI transcript as Anthropic with the tool results in one user message', () => {
    const request = fromOpenAIChat({
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'a', type: 'function', function: { name: 'f', arguments: '{"x":1}' } },
            { id: 'b', type: 'function', function: { name: 'f', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'a', content: 'A' },
        { role: 'tool', tool_call_id: 'b', content: 'B' },
      ],
    });
    const body = toAnthropic(request);
    expect(body.system).toBe('sys');
    expect(body.messages).toEqual([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'a', name: 'f', input: { x: 1 } },
          { type: 'tool_use', id: 'b', name: 'f', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'a', content: 'A' },
          { type: 'tool_result', tool_use_id: 'b', content: 'B' },
        ],
      },
    ]);
  });

  it('detects the format from the fields only one of them uses', () => {
    expect(detectFormat(anthropicRequest)).toBe('anthropic');
    expect(detectFormat(openaiRequest)).toBe('openai');
    expect(detectFormat({ messages: [{ role: 'user', content: 'hi' }] })).toBe('openai');
    expect(readRequest(JSON.stringify(anthropicRequest)).format).toBe('anthropic');
  });
});
