import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileLinearPattern } from './linear-pattern.js';

/** Patterns of the subset, built from atoms and quantifiers; every capture group is named. */
const atom: fc.Arbitrary<string> = fc.letrec<{ pattern: string; atom: string }>((tie) => ({
  atom: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('a', 'b', 'A', ' ', '.', '[ab]', '[^a]', '[a-c_]', '\\d', '\\w', '\\s', '\\W', 'x'),
    tie('pattern').map((inner) => `(?:${inner})`),
    tie('pattern').map((inner) => `(<>${inner})`),
  ),
  pattern: fc
    .array(
      fc.tuple(
        tie('atom'),
        fc.constantFrom('', '', '*', '+', '?', '{2}', '{1,3}', '{0,2}', '{2,}', '*?', '+?', '??', '{1,2}?'),
      ),
      { minLength: 1, maxLength: 3 },
    )
    .chain((items) =>
      fc.constantFrom('', '|', '^', '\\b').map((join) =>
        join === '|' && items.length > 1
          ? `${items[0]?.join('')}|${items
              .slice(1)
              .map((item) => item.join(''))
              .join('')}`
          : `${join === '^' || join === '\\b' ? join : ''}${items.map((item) => item.join('')).join('')}`,
      ),
    ),
})).pattern;

function nameGroups(pattern: string): string {
  let count = 0;
  return pattern.replaceAll('(<>', () => `(?<g${++count}>`);
}

const subsetPattern = atom.map(nameGroups);
const text = fc.string({
  unit: fc.constantFrom('a', 'b', 'A', 'c', ' ', '1', '_', '!', '\n'),
  maxLength: 14,
});

describe('linear patterns', () => {
  it('agree with JavaScript RegExp on every pattern of the subset and every text', () => {
    fc.assert(
      fc.property(subsetPattern, text, fc.boolean(), (source, input, ignoreCase) => {
        const compiled = compileLinearPattern(source, { ignoreCase });
        fc.pre(compiled.success);
        if (!compiled.success) return;
        const ours = compiled.pattern.exec(input);
        const native = new RegExp(source, ignoreCase ? 'i' : '').exec(input);
        expect(ours === null).toBe(native === null);
        if (ours && native) {
          expect(ours.index).toBe(native.index);
          expect(ours[0]).toBe(native[0]);
          expect(ours.groups).toEqual(native.groups === undefined ? undefined : { ...native.groups });
        }
      }),
      { numRuns: 3_000 },
    );
  });

  it('take at most 2 × program size × (text length + 1) steps, whatever the text', () => {
    const hostileText = fc
      .tuple(
        fc.constantFrom('a', 'ab', 'a ', '1,'),
        fc.integer({ min: 1, max: 400 }),
        fc.constantFrom('', '!', 'b'),
      )
      .map(([unit, count, end]) => unit.repeat(count) + end);
    fc.assert(
      fc.property(subsetPattern, hostileText, (source, input) => {
        const compiled = compileLinearPattern(source);
        fc.pre(compiled.success);
        if (!compiled.success) return;
        const match = compiled.pattern.exec(input);
        if (match) expect(match.steps).toBeLessThanOrEqual(2 * compiled.pattern.size * (input.length + 1));
      }),
      { numRuns: 500 },
    );
  });

  it('match the classic catastrophic shapes in linear steps', () => {
    for (const source of ['^(a+)+b', '^(a|a)+b', '^(a|aa)+b', '^(a?){25}a{25}$', String.raw`^(\w+\s?)+!`]) {
      const compiled = compileLinearPattern(source);
      if (!compiled.success) throw new Error(source);
      const short = compiled.pattern.exec(`${'a'.repeat(100)}b`);
      const long = compiled.pattern.exec(`${'a'.repeat(10_000)}b`);
      if (short && long) expect(long.steps / short.steps).toBeLessThan(120);
      const limit = 2 * compiled.pattern.size * 10_002;
      if (long) expect(long.steps).toBeLessThanOrEqual(limit);
    }
  });
});
