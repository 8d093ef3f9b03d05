import { describe, expect, it } from 'vitest';
import { DEFAULT_SYSTEM_PROMPT, renderChatTemplate } from './chat-template.js';
import { toPythonJson, toPythonRepr } from './python-json.js';
import { anthropicToTemplate, openAIToTemplate } from './wire-to-template.js';

describe('renderChatTemplate', () => {
  it('inserts the default Qwen system prompt when the request has none', () => {
    expect(renderChatTemplate({ messages: [{ role: 'user', content: 'hi' }], tools: [] })).toBe(
      `<|im_start|>system\n${DEFAULT_SYSTEM_PROMPT}<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n`,
    );
  });

  it('renders the tools block inside the system turn, one tojson line per tool', () => {
    const rendered = renderChatTemplate({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'read_file', description: null, parameters: { type: 'object' } },
        },
      ],
    });
    expect(rendered).toBe(
      '<|im_start|>system\nBe brief.\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
        'You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n' +
        '{"type": "function", "function": {"name": "read_file", "description": null, "parameters": {"type": "object"}}}\n</tools>\n\n' +
        'For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n' +
        '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n' +
        '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n',
    );
  });

  it('writes tool calls Hermes-style and joins consecutive tool results into one user turn', () => {
    const rendered = renderChatTemplate({
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: 'Reading.',
          toolCalls: [
            { name: 'read_file', arguments: { path: 'a.ts' } },
            { name: 'search', arguments: { query: 'x', limit: 2 } },
          ],
        },
        { role: 'tool', content: 'A' },
        { role: 'tool', content: 'B' },
        { role: 'user', content: 'next' },
      ],
      tools: [],
    });
    expect(rendered).toBe(
      '<|im_start|>system\nS<|im_end|>\n<|im_start|>user\ngo<|im_end|>\n' +
        '<|im_start|>assistant\nReading.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>' +
        '\n<tool_call>\n{"name": "search", "arguments": {"query": "x", "limit": 2}}\n</tool_call><|im_end|>\n' +
        '<|im_start|>user\n<tool_response>\nA\n</tool_response>\n<tool_response>\nB\n</tool_response><|im_end|>\n' +
        '<|im_start|>user\nnext<|im_end|>\n<|im_start|>assistant\n',
    );
  });

  it('renders a later system message as its own turn and skips roles the template does not know', () => {
    const rendered = renderChatTemplate({
      messages: [
        { role: 'user', content: 'a' },
        { role: 'system', content: 'late' },
        { role: 'robot', content: 'ignored' },
      ],
      tools: [],
    });
    expect(rendered).toContain('<|im_start|>system\nlate<|im_end|>\n');
    expect(rendered).not.toContain('ignored');
  });
});

describe('toPythonJson', () => {
  it("uses Python's separators and leaves non-ASCII text alone", () => {
    expect(toPythonJson({ a: [1, 'é', null, true], b: { 'c"': 'line\nbreak' } })).toBe(
      '{"a": [1, "é", null, true], "b": {"c\\"": "line\\nbreak"}}',
    );
  });

  it('writes Python reprs for FastAPI-style echoes', () => {
    expect(toPythonRepr({ model: "it's", stream: true, n: null })).toBe(
      "{'model': 'it\\'s', 'stream': True, 'n': None}",
    );
  });
});

describe('wire conversion', () => {
  it('reads OpenAI content parts, developer messages and JSON-text arguments', () => {
    const input = openAIToTemplate({
      messages: [
        {
          role: 'developer',
          content: [
            { type: 'text', text: 'one' },
            { type: 'text', text: 'two' },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }],
        },
        {
          role: 'assistant',
          content: 'x',
          tool_calls: [{ id: 'c2', type: 'function', function: { name: 'g', arguments: '{broken' } }],
        },
      ],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
    });
    expect(input.messages[0]).toEqual({ role: 'system', content: 'one\ntwo' });
    expect(input.messages[1]?.toolCalls).toEqual([{ name: 'f', arguments: { x: 1 } }]);
    expect(input.messages[2]?.toolCalls).toEqual([{ name: 'g', arguments: '{broken' }]);
    expect(input.tools).toEqual([
      { type: 'function', function: { name: 'f', description: null, parameters: { type: 'object' } } },
    ]);
  });

  it('reads Anthropic system blocks, tool_use and tool_result blocks as the equivalent OpenAI request', () => {
    const anthropic = anthropicToTemplate({
      system: [{ type: 'text', text: 'S' }],
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hidden', signature: 'sig' },
            { type: 'text', text: 'Reading.' },
            { type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a.ts' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: 'A' },
            { type: 'text', text: 'more' },
          ],
        },
      ],
      tools: [{ name: 'read_file', description: 'Read', input_schema: { type: 'object' } }],
    });
    const openai = openAIToTemplate({
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: 'Reading.',
          tool_calls: [
            { id: 't1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 't1', content: 'A' },
        { role: 'user', content: 'more' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'read_file', description: 'Read', parameters: { type: 'object' } },
        },
      ],
    });
    expect(anthropic).toEqual(openai);
  });
});
