import { describe, expect, it } from 'vitest';
import { classifyOverflow, type SpillwayError } from '../core/index.js';
import { compileOverflowPatterns, safeCompileOverflowPatterns } from './overflow-patterns.js';

function rejection(rows: unknown): SpillwayError {
  const result = safeCompileOverflowPatterns(rows);
  if (result.success) throw new Error('expected the rows to be rejected');
  return result.error;
}

describe('compileOverflowPatterns', () => {
  it('compiles rows that classifyOverflow tries before the catalog', () => {
    const patterns = compileOverflowPatterns([
      {
        name: 'acme-window',
        kind: 'context',
        regex: String.raw`acme: prompt (?<input>\d+) over (?<window>\d+)`,
      },
      { name: 'acme-quiet', kind: 'none', regex: 'acme: maintenance' },
    ]);
    expect(patterns.map((pattern) => pattern.name)).toEqual(['acme-window', 'acme-quiet']);
    expect(classifyOverflow({ status: 400, body: 'ACME: prompt 9000 over 8192', patterns })).toEqual({
      kind: 'context',
      window: 8192,
      input: 9000,
      pattern: 'acme-window',
    });
    const body = 'acme: maintenance (prompt is too long: 210000 tokens > 200000 maximum)';
    expect(classifyOverflow({ body, patterns }).kind).toBe('none');
  });

  it('rejects a regex that can backtrack catastrophically, naming the row', () => {
    const error = rejection([
      { name: 'fine', kind: 'context', regex: 'fine' },
      { name: 'hostile', kind: 'context', regex: '(a+)+$' },
    ]);
    expect(error.code).toBe('invalid_config');
    expect(error.message).toMatch(
      /^overflow_patterns\[1\] \("hostile"\): the regex can backtrack catastrophically \(exponential/,
    );
    expect(error.data).toMatchObject({ path: 'overflow_patterns[1] ("hostile")', name: 'hostile' });
    expect(
      rejection([{ name: 'quadratic', kind: 'budget', regex: String.raw`limit (\d+)\d* tokens` }]).message,
    ).toMatch(/polynomial/);
  });

  it('rejects invalid syntax, unknown kinds, typos, bad names, foreign groups and duplicates', () => {
    expect(rejection([{ name: 'open', kind: 'context', regex: '(abc' }]).message).toMatch(
      /overflow_patterns\[0\] \("open"\): the regex is not valid JavaScript/,
    );
    expect(rejection([{ name: 'kind', kind: 'window', regex: 'x' }]).message).toMatch(
      /overflow_patterns\[0\] \("kind"\)\.kind: Invalid option: expected one of "context"\|"budget"\|"output_cap"\|"none"/,
    );
    expect(rejection([{ name: 'typo', kind: 'context', regx: 'x' }]).message).toMatch(
      /Unrecognized key: "regx"/,
    );
    expect(rejection([{ name: 'Not Kebab', kind: 'context', regex: 'x' }]).message).toMatch(
      /\.name: must be kebab-case/,
    );
    expect(
      rejection([{ name: 'group', kind: 'context', regex: String.raw`(?<prompt>\d+)` }]).message,
    ).toMatch(/named group "prompt" is not a figure/);
    expect(
      rejection([
        { name: 'twice', kind: 'context', regex: 'a' },
        { name: 'twice', kind: 'none', regex: 'b' },
      ]).message,
    ).toMatch(/overflow_patterns\[1\] \("twice"\): the name is already used by overflow_patterns\[0\]/);
    expect(rejection({ overflow_patterns: [] }).message).toMatch(
      /^overflow_patterns: Invalid input: expected array/,
    );
  });

  it('rejects a regex recheck cannot decide within the time limit', () => {
    const result = safeCompileOverflowPatterns(
      [{ name: 'slow', kind: 'context', regex: String.raw`maximum context length is (?<window>\d+) tokens` }],
      { timeoutMs: 1 },
    );
    expect(result.success).toBe(false);
    if (!result.success)
      expect(result.error.message).toMatch(/could not be proven safe .* within 1 ms \(timeout\)/);
  });

  it('throws SpillwayError from compileOverflowPatterns and names a custom config path', () => {
    expect(() =>
      compileOverflowPatterns([{ name: 'x', kind: 'nope', regex: 'x' }], { path: 'proxy.overflow_patterns' }),
    ).toThrow(/^proxy\.overflow_patterns\[0\] \("x"\)\.kind/);
  });
});
