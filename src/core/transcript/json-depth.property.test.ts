import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromAnthropic } from './anthropic-messages.js';
import {
  isDepthChecked,
  jsonTextDepthExcess,
  MAX_JSON_DEPTH,
  markDepthChecked,
  valueDepthExceeds,
} from './json-depth.js';
import { fromOpenAIChat } from './openai-chat.js';

/** The depth of a parsed JSON value, recursively (fine for the small values generated here). */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...children.map(depthOf));
}

/** Strings full of what could fool a scanner: brackets, quotes, backslashes. */
const tricky = fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', 'a', ' ', ':', ',') });
const value = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    tricky,
    fc.integer(),
    fc.constant(null),
    fc.array(tie('node'), { maxLength: 3 }),
    fc.dictionary(tricky, tie('node'), { maxKeys: 3 }),
  ),
})).node;

describe('JSON depth', () => {
  it('the text scan and the value walk agree with the real depth, at every limit', () => {
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 8 }), (item, limit) => {
        const deeper = depthOf(item) > limit;
        expect(jsonTextDepthExcess(JSON.stringify(item), limit) !== undefined).toBe(deeper);
        expect(valueDepthExceeds(item, limit)).toBe(deeper);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses deep requests in the converters with invalid_transcript, text or value, without recursing', () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const text = `{"model":"m","messages":[{"role":"user","content":"hi"}],"extra":${deep}}`;
    for (const read of [fromOpenAIChat, fromAnthropic]) {
      expect(() => read(text)).toThrow(expect.objectContaining({ code: 'invalid_transcript' }));
      expect(() => read(JSON.parse(text))).toThrow(
        expect.objectContaining({
          code: 'invalid_transcript',
          message: expect.stringMatching(/deeper than 512/),
        }),
      );
    }
    const atLimit = `{"model":"m","messages":[{"role":"user","content":"hi"}],"x":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}`;
    expect(fromOpenAIChat(atLimit).messages).toHaveLength(1);
  });

  it('walks a parsed value again unless it was marked as read from a text scanned for depth', () => {
    const text = `{"model":"m","messages":[{"role":"user","content":"hi"}],"x":${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}}`;
    expect(jsonTextDepthExcess(text)).toBeDefined();
    const value = JSON.parse(text) as unknown;
    expect(isDepthChecked(value)).toBe(false);
    expect(() => fromOpenAIChat(value)).toThrow(expect.objectContaining({ code: 'invalid_transcript' }));
    const checked = JSON.parse('{"model":"m","messages":[{"role":"user","content":"hi"}]}') as unknown;
    markDepthChecked(checked);
    markDepthChecked('not an object');
    expect(isDepthChecked(checked)).toBe(true);
    expect(isDepthChecked(JSON.parse('{"model":"m"}'))).toBe(false);
    expect(fromOpenAIChat(checked).messages).toHaveLength(1);
  });

  it('counts a cycle as too deep instead of looping', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(valueDepthExceeds(cyclic)).toBe(true);
  });
});
