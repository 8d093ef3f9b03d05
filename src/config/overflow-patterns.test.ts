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

  it('accepts the regex that passed the old ReDoS check and then took 19 s, and classifies with it', () => {
    const patterns = compileOverflowPatterns([
      { name: 'stacked', kind: 'context', regex: '^(a?){25}a{25}$' },
      { name: 'nested', kind: 'budget', regex: '^(?:a+)+!$' },
    ]);
    expect(classifyOverflow({ body: 'a'.repeat(50), patterns }).pattern).toBe('stacked');
    expect(classifyOverflow({ body: 'a'.repeat(100), patterns }).pattern).toBe('no-match');
    expect(classifyOverflow({ body: `${'a'.repeat(5_000)}!`, patterns }).pattern).toBe('nested');
    expect(classifyOverflow({ body: `${'a'.repeat(5_000)}?`, patterns }).pattern).toBe('no-match');
  });

  it('rejects constructs outside the linear subset, naming the construct and what to write instead', () => {
    const lookahead = rejection([{ name: 'ahead', kind: 'context', regex: String.raw`limit(?= \d+)` }]);
    expect(lookahead.code).toBe('invalid_config');
    expect(lookahead.message).toMatch(
      /^overflow_patterns\[0\] \("ahead"\): the regex uses a lookahead \(\?= at 5\), which overflow rows do not support \(they are matched in linear time\); match the surrounding text itself/,
    );
    expect(lookahead.data).toMatchObject({ path: 'overflow_patterns[0] ("ahead")', name: 'ahead' });
    expect(rejection([{ name: 'back', kind: 'context', regex: String.raw`(a)\1` }]).message).toMatch(
      /a backreference \(\\1 at 3\).*repeat the text itself/,
    );
    expect(rejection([{ name: 'behind', kind: 'context', regex: '(?<!x)y' }]).message).toMatch(
      /a lookbehind/,
    );
    expect(rejection([{ name: 'empty', kind: 'context', regex: '(a?)*b' }]).message).toMatch(
      /a quantifier over something that can match nothing \(at 4\).*e\.g\. \(a\)\* instead of \(a\?\)\*/,
    );
    expect(rejection([{ name: 'huge', kind: 'context', regex: 'a{5000}' }]).message).toMatch(
      /the repeat count \{5000\}.*use counts up to 1000/,
    );
    expect(rejection([{ name: 'property', kind: 'context', regex: String.raw`\p{L}` }]).message).toMatch(
      /a Unicode property escape/,
    );
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

  it('throws SpillwayError from compileOverflowPatterns and names a custom config path', () => {
    expect(() =>
      compileOverflowPatterns([{ name: 'x', kind: 'nope', regex: 'x' }], { path: 'proxy.overflow_patterns' }),
    ).toThrow(/^proxy\.overflow_patterns\[0\] \("x"\)\.kind/);
  });
});
