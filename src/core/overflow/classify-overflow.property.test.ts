import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyOverflow, overflowScanText } from './classify-overflow.js';
import { MAX_SCAN_CHARS, SCAN_HEAD_CHARS, SCAN_TAIL_CHARS } from './scan-text.js';
import { OVERFLOW_KINDS } from './types.js';

const anyBody = fc.oneof(
  fc.string({ maxLength: 400 }),
  fc.string({ unit: 'binary', maxLength: 400 }),
  fc.json({ maxDepth: 6 }),
  fc.jsonValue({ maxDepth: 6 }),
  fc.uint8Array({ maxLength: 400 }),
);

describe('classifyOverflow properties', () => {
  it('returns a kind, a pattern name and only non-negative integer figures, for any input', () => {
    fc.assert(
      fc.property(
        anyBody,
        fc.option(fc.integer({ min: 100, max: 599 }), { nil: undefined }),
        (body, status) => {
          const info = classifyOverflow({ status, body });
          expect(OVERFLOW_KINDS).toContain(info.kind);
          expect(info.pattern.length).toBeGreaterThan(0);
          for (const figure of [info.window, info.input, info.output, info.total, info.outputLimit]) {
            if (figure !== undefined) expect(Number.isSafeInteger(figure) && figure >= 0).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('scans at most the head and tail of a long body: the middle never changes the result', () => {
    const head = fc.string({ maxLength: 200 }).map((text) => text.padEnd(SCAN_HEAD_CHARS, ' '));
    const tail = fc.string({ maxLength: 200 }).map((text) => text.padStart(SCAN_TAIL_CHARS, ' '));
    const middle = fc.constantFrom(
      "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
      'Rate limit reached for gpt-4 on tokens per min (TPM)',
      'x',
    );
    fc.assert(
      fc.property(head, middle, middle, tail, (start, first, second, end) => {
        const one = `${start}${first.repeat(50)}${end}`;
        const two = `${start}${second.repeat(50)}${end}`;
        expect(classifyOverflow({ status: 400, body: one })).toEqual(
          classifyOverflow({ status: 400, body: two }),
        );
        expect(overflowScanText({ body: one }).length).toBeLessThanOrEqual(MAX_SCAN_CHARS);
      }),
      { numRuns: 40 },
    );
  });

  it('derives budget vs context from Anthropic figures: the prompt alone over the window is context', () => {
    fc.assert(
      fc.property(
        fc.nat(2_000_000),
        fc.nat(200_000),
        fc.integer({ min: 1, max: 2_000_000 }),
        (input, output, window) => {
          const body = `input length and \`max_tokens\` exceed context limit: ${input} + ${output} > ${window}, decrease input length or \`max_tokens\` and try again`;
          expect(classifyOverflow({ status: 400, body })).toEqual({
            kind: input > window ? 'context' : 'budget',
            window,
            input,
            output,
            pattern: 'anthropic-input-and-max-tokens',
          });
        },
      ),
    );
  });

  it('reads OpenAI breakdowns with and without thousands separators', () => {
    fc.assert(
      fc.property(
        fc.nat(10_000_000),
        fc.nat(1_000_000),
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.boolean(),
        (input, output, window, grouped) => {
          const print = (n: number) => (grouped ? n.toLocaleString('en-US') : String(n));
          const body = `This model's maximum context length is ${print(window)} tokens. However, you requested ${print(input + output)} tokens (${print(input)} in the messages, ${print(output)} in the completion). Please reduce the length of the messages or completion.`;
          expect(classifyOverflow({ body })).toMatchObject({
            kind: input > window ? 'context' : 'budget',
            window,
            input,
            output,
            total: input + output,
          });
        },
      ),
    );
  });

  it('gives the same answer every time for the same input', () => {
    fc.assert(
      fc.property(anyBody, (body) => {
        expect(classifyOverflow({ body })).toEqual(classifyOverflow({ body }));
      }),
      { numRuns: 100 },
    );
  });
});
