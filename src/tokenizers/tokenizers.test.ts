import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { ContextWindowManager } from '../core/index.js';
import { chunkText } from './chunk-text.js';
import { createGptTokenizerCounter } from './gpt-tokenizer-counter.js';

describe('chunkText', () => {
  it('keeps every character, in order, in pieces no longer than the limit', () => {
    const text = `${'word '.repeat(2_000)}${'-'.repeat(10_000)}${'😀'.repeat(3_000)}`;
    const pieces = chunkText(text, 2_048);
    expect(pieces.join('')).toBe(text);
    expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThanOrEqual(2_048);
    expect(pieces.every((piece) => !/^[\udc00-\udfff]/.test(piece))).toBe(true);
  });

  it('cuts after whitespace when there is some', () => {
    const pieces = chunkText('abc '.repeat(1_000), 2_048);
    expect(pieces.slice(0, -1).every((piece) => piece.endsWith(' '))).toBe(true);
  });
});

describe('createGptTokenizerCounter', () => {
  it('counts like gpt-tokenizer, within the chunking difference', () => {
    const counter = createGptTokenizerCounter('o200k_base');
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(200);
    const exact = countTokens(text);
    expect(counter.count(text)).toBeGreaterThanOrEqual(exact);
    expect(counter.count(text)).toBeLessThanOrEqual(Math.ceil(exact * 1.01));
  });

  it('plugs into the manager as its counter', () => {
    const manager = new ContextWindowManager({ contextLength: 8_000, counter: createGptTokenizerCounter() });
    const result = manager.fit({
      format: 'openai',
      messages: [{ role: 'user', content: 'hello' }],
      tools: [],
      extra: {},
    });
    expect(result.breakdown.prose).toBe(countTokens('hello'));
  });
});
