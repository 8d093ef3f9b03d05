import { encode as encodeCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SYSTEM_PROMPT } from './chat-template.js';
import { countPromptTokens, renderPrompt } from './count-prompt-tokens.js';
import { measureTemplateOverhead } from './template-overhead.js';
import { getTokenizer, splitForTokenizer, TOKENIZER_CHUNK_BYTES } from './tokenizer.js';

/** The independent oracle: one token per special marker, gpt-tokenizer on the text between them. */
function oracle(rendered: string, encoder = encode): number {
  const pieces = rendered.split(/<\|im_start\|>|<\|im_end\|>/);
  return pieces.length - 1 + pieces.reduce((sum, piece) => sum + encoder(piece).length, 0);
}

describe('splitForTokenizer', () => {
  it('cuts long text into pieces of at most 2 KB of UTF-8 that join back to the input', () => {
    const text = `${'word '.repeat(900)}${'-'.repeat(5_000)}${'日本語'.repeat(900)}😀`.repeat(2);
    const pieces = splitForTokenizer(text);
    expect(pieces.join('')).toBe(text);
    for (const piece of pieces) expect(Buffer.byteLength(piece)).toBeLessThanOrEqual(TOKENIZER_CHUNK_BYTES);
    expect(pieces.length).toBeGreaterThan(10);
  });

  it('cuts prose just before a space, where the tokenizer splits anyway', () => {
    const pieces = splitForTokenizer('alpha beta '.repeat(400));
    for (const piece of pieces.slice(1)) expect(piece.startsWith(' ')).toBe(true);
  });

  it('never splits a surrogate pair', () => {
    const pieces = splitForTokenizer('😀'.repeat(2_000));
    for (const piece of pieces) expect(piece).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
  });
});

describe('countPromptTokens', () => {
  it('equals gpt-tokenizer on the rendered template, tools and tool calls included', () => {
    const body = {
      model: 'any',
      messages: [
        { role: 'user', content: 'Find the bug.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'read_file', arguments: '{"path":"src/a.ts"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'export const a = 1;' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object' } },
        },
      ],
    };
    const expected =
      `<|im_start|>system\n${DEFAULT_SYSTEM_PROMPT}\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n` +
      'You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n' +
      '{"type": "function", "function": {"name": "read_file", "description": "Read a file", "parameters": {"type": "object"}}}\n</tools>\n\n' +
      'For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n' +
      '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n' +
      '<|im_start|>user\nFind the bug.<|im_end|>\n' +
      '<|im_start|>assistant\n<tool_call>\n{"name": "read_file", "arguments": {"path": "src/a.ts"}}\n</tool_call><|im_end|>\n' +
      '<|im_start|>user\n<tool_response>\nexport const a = 1;\n</tool_response><|im_end|>\n<|im_start|>assistant\n';
    expect(renderPrompt(body)).toBe(expected);
    expect(countPromptTokens(body)).toEqual({ tokens: oracle(expected), messages: 3, tools: 1 });
    expect(countPromptTokens(body, { tokenizer: 'cl100k' }).tokens).toBe(oracle(expected, encodeCl100k));
  });

  it('counts an Anthropic request like the equivalent OpenAI request', () => {
    const anthropic = {
      model: 'claude',
      max_tokens: 10,
      system: 'S',
      messages: [{ role: 'user', content: 'hi' }],
    };
    const openai = {
      model: 'gpt',
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'hi' },
      ],
    };
    expect(countPromptTokens(anthropic).tokens).toBe(countPromptTokens(openai).tokens);
  });

  it('treats special-token look-alikes in content as text instead of throwing', () => {
    const body = { messages: [{ role: 'user', content: 'say <|endoftext|> please' }] };
    expect(countPromptTokens(body).tokens).toBeGreaterThan(
      countPromptTokens({ messages: [{ role: 'user', content: 'say please' }] }).tokens,
    );
  });

  it('stays within 0.5% of unchunked counting on long prose', () => {
    const prose = 'The budget is the window minus the reserve and a safety margin. '.repeat(600);
    const chunked = getTokenizer('o200k').count(prose);
    const whole = encode(prose).length;
    expect(Math.abs(chunked - whole) / whole).toBeLessThan(0.005);
  });

  it('rejects a body without a messages array', () => {
    expect(() => countPromptTokens({ model: 'x' })).toThrow(/messages/);
    expect(() => countPromptTokens('{not json')).toThrow(/not valid JSON/);
  });
});

describe('measureTemplateOverhead', () => {
  it('reports overheads that add up to the counted prompt of a request', () => {
    const overhead = measureTemplateOverhead();
    const content = 'What does this function return?';
    const body = {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content },
      ],
    };
    const tokens = countPromptTokens(body).tokens;
    expect(tokens).toBe(
      overhead.request.base + 2 * overhead.message.max + encode('Be brief.').length + encode(content).length,
    );
    expect(overhead.message.min).toBe(overhead.message.max);
    expect(overhead.toolCall.min).toBeGreaterThan(0);
    expect(overhead.toolSchema.max).toBeGreaterThanOrEqual(overhead.toolSchema.min);
    const noSystem = countPromptTokens({ messages: [{ role: 'user', content }] }).tokens;
    expect(noSystem).toBe(
      overhead.request.base + overhead.request.defaultSystem + overhead.message.max + encode(content).length,
    );
  });
});
