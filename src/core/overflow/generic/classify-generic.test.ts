import { describe, expect, it } from 'vitest';
import { classifyGeneric, GENERIC_FIGURES_PATTERN, GENERIC_FITS_PATTERN } from './classify-generic.js';

describe('classifyGeneric', () => {
  it('reads a server it has never seen from its figures', () => {
    expect(
      classifyGeneric({
        text: 'Cannot process new request: Prompt length (5056) exceeds maximum sequence length (2048)',
      }),
    ).toEqual({
      kind: 'context',
      window: 2048,
      input: 5056,
      pattern: GENERIC_FIGURES_PATTERN,
    });
    expect(
      classifyGeneric({
        text: "This model's maximum context length is 2048 tokens. However, your request has 8 input tokens plus 2045 'max_tokens'.",
      }),
    ).toMatchObject({ kind: 'budget', window: 2048, input: 8, output: 2045 });
  });

  it('says nothing of limits that are not about tokens, the context or the prompt', () => {
    for (const text of [
      'The requested image size 2048x2048 exceeds maximum 1024',
      'File too large: 52428800 > 10485760',
      'Invalid n: must be less than or equal to 8, got 10',
      'The number of images (12) exceeds the maximum allowed (10).',
    ])
      expect(classifyGeneric({ text, status: 400 })).toBeUndefined();
  });

  it('reports figures that show the request fitting as none, and gated near misses by their gate', () => {
    expect(
      classifyGeneric({
        text: 'Model x has hit a token limit! Input tokens: ~7,123 of 200,000 Output tokens: ~3,017 of 4,096 -- possibly exceeded output limit!',
      }),
    ).toEqual({
      kind: 'none',
      window: 200_000,
      input: 7123,
      output: 3017,
      outputLimit: 4096,
      pattern: GENERIC_FITS_PATTERN,
    });
    expect(
      classifyGeneric({
        text: "Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got 5",
      }),
    ).toEqual({
      kind: 'none',
      pattern: 'near-miss-validation',
    });
    expect(
      classifyGeneric({ text: 'prompt is too long: 9000 tokens > 8192 maximum', status: 429 }),
    ).toBeUndefined();
    expect(
      classifyGeneric({ text: 'error: prompt is too long: 9000 tokens > 8192 maximum', status: 200 }),
    ).toMatchObject({
      kind: 'context',
    });
    expect(classifyGeneric({ text: 'the prompt was long and lovely', status: 200 })).toBeUndefined();
  });
});
