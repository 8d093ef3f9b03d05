import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COUNTED_MARGIN, computeBudget, DEFAULT_RESERVE, FALLBACK_CONTEXT_LENGTH } from './budget.js';
import { clampOutputTokens } from './clamp-output-tokens.js';
import { learnWindow } from './learned-windows.js';

describe('computeBudget', () => {
  it('reserves what a reply needs: 1,024 tokens, or less when the request or the model asks for less', () => {
    expect(computeBudget({ contextLength: 100_000, maxTokens: 4_000, outputCap: 16_000 })).toEqual({
      window: 100_000,
      reserve: DEFAULT_RESERVE,
      safety: 3_000,
      budget: 100_000 - DEFAULT_RESERVE - 3_000,
      counted: 100_000 - DEFAULT_RESERVE - COUNTED_MARGIN,
    });
    // Not a share of the window: a gateway's cap as large as the window reserves the same.
    expect(computeBudget({ contextLength: 96_000, outputCap: 96_000 }).reserve).toBe(1_024);
    expect(computeBudget({ contextLength: 8_192, maxTokens: 32_000 }).reserve).toBe(1_024);
    expect(computeBudget({ contextLength: 100_000 }).reserve).toBe(1_024);
    expect(computeBudget({ contextLength: 4_096, maxTokens: 300 }).reserve).toBe(300);
    expect(computeBudget({ contextLength: 4_096, outputCap: 512 }).reserve).toBe(512);
    // A quarter of a small window, at most.
    expect(computeBudget({ contextLength: 1_200 }).reserve).toBe(300);
    expect(computeBudget({ contextLength: 4_096 }).reserve).toBe(1_024);
    // A configured reserve is the caller's word.
    expect(computeBudget({ contextLength: 48_000, maxTokens: 32_000, reserve: 32_000 }).reserve).toBe(32_000);
  });

  it('reserves the same whether the provider checks the prompt alone or prompt and reply', () => {
    expect(computeBudget({ contextLength: 4_096, maxTokens: 4_000, windowCheck: 'prompt' }).reserve).toBe(
      computeBudget({ contextLength: 4_096, maxTokens: 4_000 }).reserve,
    );
  });

  it('keeps the safety share for estimates and only a template margin for measured counts', () => {
    const limits = computeBudget({ contextLength: 32_768, maxTokens: 4_096 });
    expect(limits.budget).toBe(32_768 - DEFAULT_RESERVE - Math.ceil(32_768 * 0.03));
    expect(limits.counted).toBe(32_768 - DEFAULT_RESERVE - COUNTED_MARGIN);
    // Never more than the safety share: a small window keeps its 3%.
    const small = computeBudget({ contextLength: 4_096, maxTokens: 512 });
    expect(small.counted).toBe(small.budget);
    expect(computeBudget({ contextLength: 4_096, maxTokens: 512, safetyRatio: 0 }).counted).toBe(4_096 - 512);
  });

  it('never reserves more than 1,024 tokens from a 4,096-token window up, whatever the request asks', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 4_096, max: 2_000_000 }),
        fc.option(fc.integer({ min: 1, max: 1_000_000 }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 1_000_000 }), { nil: undefined }),
        (contextLength, maxTokens, outputCap) => {
          const { reserve } = computeBudget({ contextLength, maxTokens, outputCap });
          expect(reserve).toBeLessThanOrEqual(DEFAULT_RESERVE);
          expect(reserve).toBe(
            Math.min(DEFAULT_RESERVE, maxTokens ?? DEFAULT_RESERVE, outputCap ?? DEFAULT_RESERVE),
          );
        },
      ),
    );
  });

  it('falls back to a conservative 8,192-token window', () => {
    expect(computeBudget({}).window).toBe(FALLBACK_CONTEXT_LENGTH);
    expect(FALLBACK_CONTEXT_LENGTH).toBe(8_192);
  });
});

describe('clampOutputTokens', () => {
  it('fills in min(cap, window - prompt - 512)', () => {
    expect(clampOutputTokens({ window: 32_768, promptEstimate: 30_000, outputCap: 8_192 })).toBe(2_256);
    expect(clampOutputTokens({ window: 32_768, promptEstimate: 1_000, outputCap: 8_192 })).toBe(8_192);
  });

  it('never goes below min(1024, cap)', () => {
    expect(clampOutputTokens({ window: 32_768, promptEstimate: 32_700, requested: 4_000 })).toBe(1_024);
    expect(clampOutputTokens({ window: 32_768, promptEstimate: 32_700, outputCap: 300 })).toBe(300);
  });

  it('fills in a missing max_tokens only when the output cap is known', () => {
    expect(clampOutputTokens({ window: 32_768, promptEstimate: 10_000 })).toBeUndefined();
    expect(clampOutputTokens({ window: 32_768, promptEstimate: 10_000, outputCap: 8_192 })).toBe(8_192);
    expect(clampOutputTokens({ window: 32_768, promptEstimate: 30_000, outputCap: 8_192 })).toBe(2_256);
  });

  it('lowers an explicit max_tokens only when the window has no room for it, and never raises it', () => {
    expect(clampOutputTokens({ window: 10_000, promptEstimate: 4_000, requested: 5_000 })).toBe(5_000);
    expect(clampOutputTokens({ window: 10_000, promptEstimate: 5_000, requested: 8_000 })).toBe(4_488);
    expect(
      clampOutputTokens({ window: 10_000, promptEstimate: 5_000, requested: 8_000, mode: 'never' }),
    ).toBe(8_000);
    expect(clampOutputTokens({ window: 10_000, promptEstimate: 1_000, requested: 100 })).toBe(100);
    expect(clampOutputTokens({ window: 10_000, promptEstimate: 1_000, mode: 'lower' })).toBeUndefined();
    expect(clampOutputTokens({ window: 10_000, promptEstimate: 1_000, mode: 'never' })).toBeUndefined();
  });
});

describe('learnWindow', () => {
  it('keeps plausible windows per model and ignores implausible figures', () => {
    let learned = learnWindow({}, 'm', 21_000);
    learned = learnWindow(learned, 'm', 512);
    learned = learnWindow(learned, 'm', 2 ** 31);
    expect(learned).toEqual({ m: 21_000 });
  });
});
