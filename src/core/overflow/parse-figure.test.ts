import { describe, expect, it } from 'vitest';
import { parseFigure } from './parse-figure.js';

describe('parseFigure', () => {
  it('reads plain figures and figures grouped by thousands with any common separator', () => {
    expect(parseFigure('131072')).toBe(131_072);
    expect(parseFigure('128,000')).toBe(128_000);
    expect(parseFigure('1 048 576')).toBe(1_048_576);
    expect(parseFigure('1\u202f048\u00a0576')).toBe(1_048_576);
    expect(parseFigure('128_000')).toBe(128_000);
    expect(parseFigure("128'000")).toBe(128_000);
    expect(parseFigure('  8192 ')).toBe(8192);
  });

  it('refuses what is not one figure', () => {
    expect(parseFigure('12,34')).toBeUndefined();
    expect(parseFigure('1, 204800')).toBeUndefined();
    expect(parseFigure('4.5')).toBeUndefined();
    expect(parseFigure('-3')).toBeUndefined();
    expect(parseFigure('')).toBeUndefined();
    expect(parseFigure(undefined)).toBeUndefined();
    expect(parseFigure('9'.repeat(30))).toBeUndefined();
  });
});
