import { describe, expect, it } from 'vitest';
import { computeBudget } from '../core/index.js';
import type { ResolvedLimits } from '../models/index.js';
import type { ContextStatus } from './context-status.js';
import { describeEvent } from './describe-event.js';
import { formatContext, formatMeter } from './format-chat.js';
import { formatLimits } from './format-limits.js';
import { formatUsage } from './format-usage.js';
import { emptyUsage } from './session-usage.js';

const limits: ResolvedLimits = {
  model: 'glm5.2',
  contextLength: 32_768,
  outputCap: 8_000,
  source: { contextLength: 'config', outputCap: 'claimed:/model/info' },
  figures: {
    contextLength: [{ value: 32_768, source: 'config' }],
    outputCap: [{ value: 8_000, source: 'claimed:/model/info' }],
  },
};

const part = (count: number, tokens: number) => ({ count, tokens });

function status(overrides: Partial<ContextStatus> = {}): ContextStatus {
  return {
    tokens: 10_912,
    basis: 'provider',
    reported: { prompt: 10_700, reply: 212 },
    window: 16_000,
    budget: 7_520,
    parts: {
      head: part(2, 100),
      turns: part(3, 2_000),
      toolOutputs: part(2, 8_172),
      schemas: { ...part(6, 640), sources: [{ source: 'builtin', tools: 6, tokens: 600 }] },
    },
    leftOut: { turns: 0 },
    ...overrides,
  };
}

describe('the chat’s words', () => {
  it('shows the meter with the provider’s count, or an estimate marked as one, and the cost', () => {
    expect(formatMeter({ status: status() })).toBe('context 11k / 16k (68%) · budget 7.5k · schemas 640');
    expect(formatMeter({ status: status({ tokens: 900, basis: 'estimate' }), cost: 0.01234 })).toBe(
      'context ≈900 / 16k (6%) · budget 7.5k · schemas 640 · session $0.0123',
    );
  });

  it('shows in /context the figure of the meter, split into parts that add up to it', () => {
    const text = formatContext(status({ leftOut: { turns: 3 } }));
    const [head, ...rows] = text.split('\n');
    expect(head).toBe(
      "10,912 of 16,000 tokens in the window (68%): the provider's count of the last request, 10,700 tokens, and of its 212-token reply",
    );
    const figures = rows.slice(0, 4).map((row) => Number(row.trim().split(/\s+/).at(-1)?.replace(/,/g, '')));
    expect(figures.reduce((a, b) => a + b, 0)).toBe(10_912);
    expect(text).toContain('3 older turns stay in the session but were left out of the last request to fit');
  });

  it('shows every figure in /limits, and where each came from', () => {
    const figures = computeBudget({ contextLength: 16_000, outputCap: 8_000 });
    const text = formatLimits({ limits, figures, reserve: 'reply', status: status(), outputCap: 8_000 });
    expect(text.split('\n')).toEqual([
      'model          glm5.2',
      'window         16,000  stated by the provider in an error, over 32,768 (config)',
      'output cap      8,000  claimed by the gateway at /model/info',
      'reserve         1,024  what a reply needs: 1,024 (each reply gets the room the prompt leaves)',
      'safety margin     480  3% of the window, for estimation error',
      'prompt budget  14,496  window − reserve − safety margin',
      'tool schemas      640  sent with every request, inside the prompt budget',
      "in use now     10,912  the provider's count of the last exchange",
      'next reply      4,576  max_tokens at most: window − in use − 512, and the output cap',
    ]);
    expect(
      formatLimits({
        limits,
        figures: computeBudget({ contextLength: 32_768, reserve: 2_000 }),
        reserve: 'config',
        status: status(),
      }),
    ).toMatch(/reserve +2,000 {2}config \(reserve\)/);
  });

  it('shows the session’s tokens, cached and not, and the cost at the configured prices', () => {
    const figures = {
      ...emptyUsage(),
      requests: 2,
      promptTokens: 3_000,
      cachedTokens: 2_000,
      completionTokens: 100,
    };
    expect(
      formatUsage({
        figures,
        prices: { input: 2.5, cachedInput: 1.25, output: 10 },
        sessionId: 'abcdef123',
      }).split('\n'),
    ).toEqual([
      'session abcdef12 · 2 requests',
      'prompt tokens       3,000  cached 2,000 · written to the cache 0 · uncached 1,000',
      'reply tokens          100',
      'cost              $0.0060  uncached $0.0025 · cached $0.0025 · cache writes $0.0000 · replies $0.0010',
    ]);
    expect(formatUsage({ figures: { ...figures, withoutCacheFigure: 1 } })).toMatch(
      /set "prices" in the config[\s\S]*1 request stated no cache figure/,
    );
  });

  it('puts loop events in plain words', () => {
    expect(
      describeEvent({
        type: 'cut',
        iteration: 1,
        kind: 'elide+drop',
        freed: 7_100,
        droppedTurns: 3,
        elided: 2,
        shortened: 0,
        after: 7_100,
        budget: 7_520,
      }),
    ).toEqual({
      level: 'info',
      text: 'cut 7.1k tokens to fit the window: 3 older turns left out, 2 older tool outputs elided (now 7.1k of 7.5k)',
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
