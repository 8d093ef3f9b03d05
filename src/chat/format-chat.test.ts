import { describe, expect, it } from 'vitest';
import type { ResolvedLimits } from '../models/index.js';
import { chooseReserve } from './choose-reserve.js';
import { describeEvent } from './describe-event.js';
import { formatLimits, formatMeter } from './format-chat.js';

const limits: ResolvedLimits = {
  model: 'glm5.2',
  contextLength: 32_768,
  outputCap: 8_000,
  source: { contextLength: 'config', outputCap: 'discovery:/model/info' },
};

describe('the chat’s words', () => {
  it('shows the meter with the provider’s count, or an estimate marked as one', () => {
    expect(formatMeter({ tokens: 10_912, reported: true, window: 16_000, budget: 7_520, schemas: 640 })).toBe(
      'context 11k / 16k (68%) · budget 7.5k · schemas 640',
    );
    expect(formatMeter({ tokens: 900, reported: false, window: 8_192, budget: 6_000, schemas: 0 })).toMatch(
      /^context ≈900 /,
    );
  });

  it('says where each limit came from, and when the window was learned in the session', () => {
    const text = formatLimits({ limits, window: 16_000, budget: 7_520, reserve: { reason: 'output cap' } });
    expect(text).toContain('window         16,000  learned from an overflow error (config said 32,768)');
    expect(text).toContain('output cap      8,000  discovered at /model/info');
    expect(text).toContain('reserve         8,000  the output cap');
    expect(
      formatLimits({ limits, window: 32_768, budget: 1, reserve: { reason: 'config', tokens: 2_000 } }),
    ).toContain('window         32,768  config');
  });

  it('puts loop events in plain words', () => {
    expect(
      describeEvent({
        type: 'prune',
        iteration: 1,
        droppedTurns: 3,
        before: 14_200,
        after: 7_100,
        budget: 7_520,
      }),
    ).toEqual({
      level: 'info',
      text: 'pruned 3 older turns to fit the budget (14k → 7.1k of 7.5k tokens)',
    });
    expect(describeEvent({ type: 'compaction-start', iteration: 2, reason: 'overflow' })?.text).toMatch(
      /recovering…$/,
    );
    expect(
      describeEvent({
        type: 'recovery',
        iteration: 2,
        action: 'lower_max_tokens',
        steps: [
          {
            step: 'lower_max_tokens',
            from: 8_000,
            to: 4_700,
            window: 16_384,
            input: 11_000,
            inputSource: 'stated',
          },
        ],
        overflow: 'budget',
      })?.text,
    ).toBe('recovered from a budget overflow: max_tokens 8000 → 4700 (window 16384, stated prompt 11000)');
    expect(describeEvent({ type: 'send-start', iteration: 1, tools: 5, synthesis: false })).toBeUndefined();
  });
});

describe('chooseReserve', () => {
  it('reserves the output cap unless it would take more than a quarter of the window', () => {
    expect(chooseReserve({ contextLength: 128_000, outputCap: 16_384 })).toBeUndefined();
    expect(chooseReserve({ contextLength: 9_600, outputCap: 9_600 })).toBe(1_000);
    expect(chooseReserve({ contextLength: 9_600, outputCap: 9_600, reserve: 3_000 })).toBe(3_000);
    expect(chooseReserve({ contextLength: 9_600 })).toBeUndefined();
  });
});
