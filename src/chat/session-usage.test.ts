import { describe, expect, it } from 'vitest';
import { addUsage, emptyUsage, uncachedTokens, usageCost } from './session-usage.js';

describe('session usage', () => {
  it('adds cached and uncached prompt tokens, and counts requests that stated no cache figure', () => {
    let figures = addUsage(emptyUsage(), {
      promptTokens: 2_524,
      completionTokens: 120,
      cachedTokens: 2_432,
    });
    figures = addUsage(figures, {
      promptTokens: 2_009,
      completionTokens: 393,
      cachedTokens: 1_800,
      cacheWriteTokens: 188,
    });
    figures = addUsage(figures, { promptTokens: 100, completionTokens: 10 });
    expect(figures).toEqual({
      requests: 3,
      promptTokens: 4_633,
      cachedTokens: 4_232,
      cacheWriteTokens: 188,
      completionTokens: 523,
      withoutCacheFigure: 1,
    });
    expect(uncachedTokens(figures)).toBe(213);
  });

  it('prices uncached, cached, cache-written and reply tokens per million', () => {
    const figures = {
      ...emptyUsage(),
      promptTokens: 1_300_000,
      cachedTokens: 1_000_000,
      cacheWriteTokens: 100_000,
      completionTokens: 50_000,
    };
    const cost = usageCost(figures, { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 });
    expect(cost.uncachedInput).toBeCloseTo(0.6);
    expect(cost.cachedInput).toBeCloseTo(0.3);
    expect(cost.cacheWrite).toBeCloseTo(0.375);
    expect(cost.output).toBeCloseTo(0.75);
    expect(cost.total).toBeCloseTo(2.025);
    expect(usageCost(figures, { input: 3, output: 15 }).cachedInput).toBeCloseTo(3);
  });
});
