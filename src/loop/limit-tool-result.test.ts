import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../core/index.js';
import { limitToolResult } from './limit-tool-result.js';

describe('limitToolResult', () => {
  const log = Array.from(
    { length: 4_000 },
    (_, index) =>
      `2026-12-02T10:00:${String(index % 60).padStart(2, '0')} line ${index} worker=${index % 7} ok`,
  ).join('\n');

  it('keeps a result that fits as it is', () => {
    expect(limitToolResult({ content: 'short', maxTokens: 100 })).toEqual({ content: 'short', cut: false });
  });

  it('cuts a large result to its limit, keeping the first and last lines and saying what is missing', () => {
    const { content, cut } = limitToolResult({ content: log, maxTokens: 2_000, model: 'gpt-4o' });
    expect(cut).toBe(true);
    const text = content as string;
    expect(estimateTokens(text, { model: 'gpt-4o' }).total).toBeLessThanOrEqual(2_000);
    expect(text.startsWith('2026-12-02T10:00:00 line 0 ')).toBe(true);
    expect(text.endsWith('line 3999 worker=2 ok')).toBe(true);
    expect(text).toMatch(/tokens of this output cut to fit the context window/);
  });

  it('leaves results alone when there is no limit', () => {
    expect(limitToolResult({ content: log, maxTokens: Number.POSITIVE_INFINITY }).cut).toBe(false);
  });
});
