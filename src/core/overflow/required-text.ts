/**
 * @module
 * A quick test before a row's pattern runs: literals one of which every match of the pattern
 * contains, lower-cased. A text that holds none of them cannot match, and `includes` on the
 * lower-cased text is cheaper than a case-insensitive expression that cannot skip ahead.
 */
export { holdsOneOf } from './linear/linear-pattern.js';

import { requiredLiterals } from './linear/linear-pattern.js';
import { parseLinearPattern } from './linear/parse-pattern.js';
import type { OverflowMatcher } from './types.js';

/** Literals by catalog, computed once per list of rows: a row's pattern never changes. */
const LITERALS = new WeakMap<readonly { pattern: OverflowMatcher }[], ReadonlyArray<readonly string[]>>();

/** The source a catalog figure fragment reads as (a lookahead the linear parser leaves out). */
const FIGURE_LOOKAHEAD = /\(\?!\\d\)/g;

function literalsOf(pattern: OverflowMatcher): readonly string[] {
  if (!pattern.flags.includes('i')) return [];
  const parsed = parseLinearPattern(pattern.source.replace(FIGURE_LOOKAHEAD, ''));
  return parsed.success ? requiredLiterals(parsed.tree).map((literal) => literal.toLowerCase()) : [];
}

/**
 * For each row of `rows`, lower-cased literals one of which every match of its pattern contains
 * (`[]` when the linear parser does not read the pattern: that row always runs).
 */
export function requiredLiteralsOf(
  rows: readonly { pattern: OverflowMatcher }[],
): ReadonlyArray<readonly string[]> {
  let literals = LITERALS.get(rows);
  if (literals === undefined) {
    literals = rows.map((row) => literalsOf(row.pattern));
    LITERALS.set(rows, literals);
  }
  return literals;
}
