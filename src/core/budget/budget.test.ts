import { describe, expect, it } from 'vitest';
import { COUNTED_MARGIN, computeBudget, FALLBACK_CONTEXT_LENGTH } from './budget.js';
import { clampOutputTokens } from './clamp-output-tokens.js';
import { learnWindow } from './learned-windows.js';

describe('computeBudget', () => {
  it('reserves the request max_tokens, else the output cap (at most a quarter of the window), else max(1000, 2% of the window)', () => {
    expect(computeBudget({ contextLength: 100_000, maxTokens: 4_000, outputCap: 16_000 })).toEqual({
      window: 100_000,
      reserve: 4_000,
      safety: 3_000,
      budget: 93_000,
      counted: 100_000 - 4_000 - COUNTED_MARGIN,
    });
    expect(computeBudget({ contextLength: 100_000, outputCap: 16_000 }).reserve).toBe(16_000);
    expect(computeBudget({ contextLength: 96_000, outputCap: 96_000 }).reserve).toBe(24_000);
    expect(computeBudget({ contextLength: 48_000, maxTokens: 32_000 }).reserve).toBe(12_000);
    expect(computeBudget({ contextLength: 48_000, maxTokens: 32_000, reserve: 32_000 }).reserve).toBe(32_000);
    expect(computeBudget({ contextLength: 100_000 }).reserve).toBe(2_000);
    expect(computeBudget({ contextLength: 20_000 }).reserve).toBe(1_000);
    expect(computeBudget({ contextLength: 2_000 }).reserve).toBe(500);
  });

  it('keeps the safety share for estimates and only a template margin for measured counts', () => {
    const limits = computeBudget({ contextLength: 32_768, maxTokens: 4_096 });
    expect(limits.budget).toBe(32_768 - 4_096 - Math.ceil(32_768 * 0.03));
    expect(limits.counted).toBe(32_768 - 4_096 - COUNTED_MARGIN);
    // Never more than the safety share: a small window keeps its 3%.
    const small = computeBudget({ contextLength: 4_096, maxTokens: 512 });
    expect(small.counted).toBe(small.budget);
    expect(computeBudget({ contextLength: 4_096, maxTokens: 512, safetyRatio: 0 }).counted).toBe(4_096 - 512);
  });

  it('reserves at most an eighth of the window where the provider checks the prompt alone', () => {
    expect(computeBudget({ contextLength: 4_096, maxTokens: 1_024, windowCheck: 'prompt' }).reserve).toBe(
      512,
    );
    expect(computeBudget({ contextLength: 4_096, maxTokens: 300, windowCheck: 'prompt' }).reserve).toBe(300);
    expect(computeBudget({ contextLength: 4_096, maxTokens: 1_024 }).reserve).toBe(1_024);
    expect(computeBudget({ contextLength: 4_096, windowCheck: 'prompt' }).reserve).toBe(512);
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
