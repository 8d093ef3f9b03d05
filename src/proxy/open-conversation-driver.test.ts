import { describe, expect, it } from 'vitest';
import type { LimitSource } from '../models/index.js';
import { conversationWindows } from './open-conversation-driver.js';

const limits = (contextLength: number, source: LimitSource) => ({
  contextLength,
  source: { contextLength: source, outputCap: source },
});

describe('conversationWindows', () => {
  it('keeps the window a conversation learned below a catalog, claimed, soft config or fallback window', () => {
    for (const source of ['catalog', 'claimed:/model/info', 'config', 'fallback'] as const)
      expect(conversationWindows({ 'gpt-4o': 8_192 }, 'gpt-4o', limits(128_000, source))).toEqual({
        'gpt-4o': 8_192,
      });
  });

  it('lets a stated, probed, discovered or hard window stand', () => {
    for (const source of ['stated', 'probed', 'discovered:/v1/models', 'config:hard'] as const)
      expect(conversationWindows({ 'gpt-4o': 8_192 }, 'gpt-4o', limits(128_000, source))).toEqual({});
  });

  it('drops a window at or above the limits, another model’s, and anything that is no window', () => {
    expect(conversationWindows({ 'gpt-4o': 8_192 }, 'gpt-4o', limits(8_192, 'catalog'))).toEqual({});
    expect(conversationWindows({ 'gpt-4o': 8_192 }, 'other', limits(128_000, 'catalog'))).toEqual({});
    expect(conversationWindows({ 'gpt-4o': 8_192 }, undefined, limits(128_000, 'catalog'))).toEqual({});
    for (const window of [12, -1, 1.5, Number.NaN, '8192', null])
      expect(conversationWindows({ 'gpt-4o': window }, 'gpt-4o', limits(128_000, 'catalog'))).toEqual({});
    for (const stored of [undefined, null, 'x', 7])
      expect(conversationWindows(stored, 'gpt-4o', limits(128_000, 'catalog'))).toEqual({});
  });
});
