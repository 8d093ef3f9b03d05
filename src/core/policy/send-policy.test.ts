import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY } from '../driver/index.js';
import {
  NO_RESENDS,
  type SendSurface,
  sendPolicy,
  TOOL_RESULTS_SHARE,
  toolResultLimit,
} from './send-policy.js';

const SURFACES: SendSurface[] = ['library', 'loop', 'chat', 'demo', 'proxy', 'ai-sdk', 'openai', 'anthropic'];

describe('sendPolicy', () => {
  it('gives every surface the same reserve, safety share, counting and recovery inputs', () => {
    const counter = { name: 'test', count: (text: string) => text.length };
    const options = {
      model: 'qwen',
      limits: { contextLength: 21_000, outputCap: 9_600 },
      user: { safetyRatio: 0.05, cutRunway: 3, overflowPatterns: [] },
      counting: { tokenizer: counter },
    };
    const shared = SURFACES.map((surface) => {
      const { driver } = sendPolicy({ surface, ...options });
      const { adoptsHistory: _adopts, retry: _retry, clamp: _clamp, ...rest } = driver;
      return rest;
    });
    for (const rest of shared) expect(rest).toEqual(shared[0]);
    expect(shared[0]).toMatchObject({ contextLength: 21_000, outputCap: 9_600, tokenizer: counter });
    // The reserve is what a reply needs on every surface, unless the user sets one.
    expect(shared[0]).not.toHaveProperty('reserve');
  });

  it('lets the surface decide only history adoption, resends and the proxy’s lower-only clamp', () => {
    const of = (surface: SendSurface) => sendPolicy({ surface, user: { clamp: 'auto' } }).driver;
    for (const surface of ['loop', 'chat', 'demo'] as const) {
      expect(of(surface).adoptsHistory).toBe(true);
      expect(of(surface).retry ?? DEFAULT_RETRY_POLICY).toEqual(DEFAULT_RETRY_POLICY);
    }
    for (const surface of ['proxy', 'ai-sdk', 'openai', 'anthropic'] as const) {
      expect(of(surface).adoptsHistory).toBeUndefined();
      expect(of(surface).retry).toEqual(NO_RESENDS);
    }
    expect(of('proxy').clamp).toBe('lower');
    expect(of('openai').clamp).toBe('auto');
  });

  it('says where the reserve came from', () => {
    expect(sendPolicy({ surface: 'chat' }).reserve).toBe('reply');
    expect(sendPolicy({ surface: 'chat', user: { reserve: 3_000 } })).toMatchObject({
      reserve: 'config',
      driver: { reserve: 3_000 },
    });
  });
});

describe('toolResultLimit', () => {
  it('shares half the budget among the run’s calls, never less than one token', () => {
    expect(toolResultLimit({ budget: 100_000, calls: 2 })).toBe(25_000);
    fc.assert(
      fc.property(
        fc.integer({ min: -10, max: 1_000_000 }),
        fc.integer({ min: 0, max: 64 }),
        (budget, calls) => {
          const limit = toolResultLimit({ budget, calls });
          expect(limit).toBeGreaterThanOrEqual(1);
          expect(limit * Math.max(1, calls)).toBeLessThanOrEqual(
            Math.max(Math.max(1, calls), TOOL_RESULTS_SHARE * budget),
          );
        },
      ),
    );
  });
});

describe('sendPolicy with a surface it does not know', () => {
  it('throws invalid_argument naming the surfaces', () => {
    expect(() => sendPolicy({ surface: 'bogus' as never })).toThrow(
      /surface must be one of library, loop, chat, demo, proxy, ai-sdk, openai, anthropic, got "bogus"/,
    );
  });
});
