import { describe, expect, it } from 'vitest';
import { MAX_PROGRAM_SIZE } from './compile-program.js';
import { compileLinearPattern, type LinearPattern, requiredLiterals } from './linear-pattern.js';
import { parseLinearPattern } from './parse-pattern.js';

function compiled(source: string, ignoreCase = true): LinearPattern {
  const result = compileLinearPattern(source, { ignoreCase });
  if (!result.success) throw new Error(`${source}: ${result.problem.construct}`);
  return result.pattern;
}

function problem(source: string) {
  const result = compileLinearPattern(source);
  if (result.success) throw new Error(`${source} was accepted`);
  return result.problem;
}

function same(source: string, text: string, ignoreCase = true) {
  const ours = compiled(source, ignoreCase).exec(text);
  const native = new RegExp(source, ignoreCase ? 'i' : '').exec(text);
  expect(ours === null).toBe(native === null);
  if (ours && native) {
    expect(ours.index).toBe(native.index);
    expect(ours[0]).toBe(native[0]);
    expect(ours.groups).toEqual(native.groups === undefined ? undefined : { ...native.groups });
  }
}

describe('compileLinearPattern', () => {
  it('finds the leftmost match with the captures a backtracking engine reports', () => {
    same(String.raw`acme: prompt (?<input>\d+) over (?<window>\d+)`, 'x ACME: prompt 9000 over 8192 y');
    same('(?<first>a|ab)(?<second>c|bcd)', 'abcd');
    same('(?<lazy>a+?)(?<rest>a*)', 'aaaa');
    same('(?<eager>a{1,3})(?<rest>a*)', 'aaaaa');
    same('(?<few>a{1,3}?)b', 'aaab');
    same('x(?<one>a)?y', 'xy');
  });

  it('clears the captures of a repeated group at each iteration, as JavaScript does', () => {
    same('(?:(?<a>a)|(?<b>b))+', 'ab');
    same('(?:(?<a>a)|b)+', 'ab');
    same('(?<outer>(?<inner>x)|y){2}', 'xy');
  });

  it('matches classes, escapes, anchors and word boundaries like RegExp', () => {
    same(String.raw`[^a-c]\s\w\W\d\D.`, 'abcd x_!7x.');
    same(String.raw`^\$\d+\.\d{2}$`, '$12.50');
    same(String.raw`\bcat\b`, 'concat cat');
    same(String.raw`\Bcat\B`, 'concatenate');
    same(String.raw`\x41\u0042[\x43-\x45]`, 'abd');
    same('[\\]\\-a]+', 'a-]x');
    same('a{', 'a{');
    same('.+', 'line\nnext');
  });

  it('folds case like the i flag, and respects case without it', () => {
    same('ToKeNs', 'TOKENS');
    same('[A-C]+', 'abcABC');
    same('tokens', 'TOKENS', false);
    same('[a-c]+', 'ABCabc', false);
  });

  it('names the construct it leaves out and what to write instead', () => {
    expect(problem('(?=a)b')).toMatchObject({ construct: 'a lookahead (?= at 0)', index: 0 });
    expect(problem('x(?!a)')).toMatchObject({ construct: 'a lookahead (?! at 1)' });
    expect(problem('(?<=a)b').construct).toBe('a lookbehind (?<= at 0)');
    expect(problem(String.raw`(a)\1`).fix).toMatch(/repeat the text itself/);
    expect(problem(String.raw`(?<x>a)\k<x>`).construct).toMatch(/backreference/);
    expect(problem(String.raw`\p{Lu}`).construct).toMatch(/Unicode property escape/);
    expect(problem(String.raw`\cJ`).fix).toMatch(/\\xHH/);
    expect(problem('(a?)*').fix).toMatch(/\(a\)\* instead of \(a\?\)\*/);
    expect(problem('(?:a|)+').construct).toMatch(/can match nothing/);
    expect(problem('(\\b)?').construct).toMatch(/can match nothing/);
    expect(problem('a{1001}').construct).toBe('the repeat count {1001} (at 1)');
    expect(problem('^*').construct).toMatch(/quantifier on an anchor/);
  });

  it('keeps a fixed count over something that can match nothing: it has no optional iteration', () => {
    same('^(?<part>a?){25}a{25}$', 'a'.repeat(30));
    same('^(a?){3}$', 'aa');
  });

  it('refuses a pattern that unrolls past the program size', () => {
    expect(problem('(?:abcdefghij){1000}').construct).toBe(
      `a pattern that unrolls to more than ${MAX_PROGRAM_SIZE} instructions`,
    );
  });

  it('skips the program when the text lacks a literal every match contains', () => {
    const tree = parseLinearPattern(String.raw`prompt (\d+)(?: tokens)? over (?:a|b)`);
    if (!tree.success) throw new Error('parse');
    expect(requiredLiterals(tree.tree)).toEqual(['prompt ']);
    const either = parseLinearPattern(String.raw`\brate[ _-]?limit|\btoo many requests\b`);
    if (!either.success) throw new Error('parse');
    expect(requiredLiterals(either.tree)).toEqual(['limit', 'too many requests']);
    const pattern = compiled(String.raw`acme (\d+) over`);
    expect(pattern.exec('no such words here')).toBeNull();
    expect(pattern.exec('ACME 12 OVER')?.steps).toBeGreaterThan(0);
  });
});
