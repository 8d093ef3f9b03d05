import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyOverflow } from '../classify-overflow.js';
import { extractFigures } from './extract-figures.js';

/** Wordings of near misses, each with figures and overflow-like words around them. */
const NEAR_MISSES = [
  (a: string, b: string) =>
    `Rate limit reached on tokens per min (TPM): Limit ${a}, Requested ${b}. Reduce the prompt.`,
  (a: string, b: string) =>
    `This request would exceed your organization's rate limit of ${a} input tokens per minute (requested ${b}).`,
  (a: string, b: string) =>
    `Too many tokens, please wait before trying again. prompt is too long: ${b} tokens > ${a} maximum`,
  (a: string, b: string) => `You exceeded your current quota of ${a} tokens; the prompt has ${b} tokens.`,
  (a: string, b: string) => `Maximum request body size ${a} exceeded, actual body size ${b} bytes`,
  (a: string, b: string) =>
    `The model is overloaded (context window ${a}, queue ${b}). Please try again later.`,
  (a: string, b: string) => `invalid x-api-key; maximum context length is ${a} tokens, requested ${b}`,
  (a: string, b: string) =>
    `length limit was reached - CompletionUsage(completion_tokens=${a}, prompt_tokens=${b})`,
];

/** Overflow bodies with the figures written plainly; separators are applied to every figure. */
const OVERFLOWS = [
  (w: string, i: string, o: string) =>
    `This model's maximum context length is ${w} tokens. However, you requested ${o} output tokens and your prompt contains ${i} input tokens.`,
  (w: string, i: string, o: string) => `input length and max_tokens exceed context limit: ${i} + ${o} > ${w}`,
  (w: string, i: string, o: string) =>
    `Given: ${i} \`inputs\` tokens and ${o} \`max_new_tokens\`; \`inputs\` tokens + \`max_new_tokens\` must be <= ${w}.`,
  (w: string, i: string, _o: string) => `Prompt length (${i}) exceeds maximum sequence length (${w})`,
];

function grouped(value: number, separator: string): string {
  return value.toString().replace(/\B(?=(\d{3})+(?!\d))/g, separator);
}

describe('the generic layer', () => {
  it('never reads a near miss as an overflow, whatever its figures and status', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...NEAR_MISSES),
        fc.integer({ min: 1, max: 2_000_000 }),
        fc.integer({ min: 1, max: 2_000_000 }),
        fc.constantFrom(undefined, 400, 413, 422, 500),
        (wording, a, b, status) => {
          const body = wording(String(a), String(b));
          expect(classifyOverflow({ body, status, catalog: [] }).kind).toBe('none');
        },
      ),
      { numRuns: 400 },
    );
  });

  it('reads the same figures whatever thousands separator or spacing a body uses', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...OVERFLOWS),
        fc.integer({ min: 1_000, max: 2_000_000 }),
        fc.integer({ min: 1, max: 2_000_000 }),
        fc.integer({ min: 1, max: 200_000 }),
        fc.constantFrom(',', ' ', '_', '\u202f', '\u00a0', "'"),
        fc.constantFrom(' ', '  ', '\n', '\t '),
        (wording, window, input, output, separator, space) => {
          const plain = wording(String(window), String(input), String(output));
          const variant = wording(
            grouped(window, separator),
            grouped(input, separator),
            grouped(output, separator),
          ).replaceAll(' ', space);
          const expected = classifyOverflow({ body: plain, catalog: [] });
          const actual = classifyOverflow({ body: variant, catalog: [] });
          expect(actual).toEqual(expected);
          expect(extractFigures(plain).figures.window).toBe(window);
        },
      ),
      { numRuns: 400 },
    );
  });
});
