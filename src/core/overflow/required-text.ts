/**
 * @module
 * A quick test before a row's pattern runs: literals one of which every match of the pattern
 * contains, lower-cased. A text that holds none of them cannot match, and `includes` on the
 * lower-cased text is cheaper than a case-insensitive expression that cannot skip ahead.
 */
import { requiredLiterals } from './linear/linear-pattern.js';
import { parseLinearPattern } from './linear/parse-pattern.js';
import type { OverflowMatcher } from './types.js';

/** Literals by pattern, computed once: a pattern's source never changes. */
const LITERALS = new WeakMap<OverflowMatcher, readonly string[]>();

/** The source a catalog figure fragment reads as (a lookahead the linear parser leaves out). */
const FIGURE_LOOKAHEAD = /\(\?!\\d\)/g;

function literalsOf(pattern: OverflowMatcher): readonly string[] {
  if (!pattern.flags.includes('i')) return [];
  const parsed = parseLinearPattern(pattern.source.replace(FIGURE_LOOKAHEAD, ''));
  return parsed.success ? requiredLiterals(parsed.tree).map((literal) => literal.toLowerCase()) : [];
}

/**
 * Whether `lowerText` (the scan text, lower-cased) can match `pattern`: false only when it holds
 * none of the literals every match requires. Patterns the linear parser does not read always run.
 */
export function mayMatch(pattern: OverflowMatcher, lowerText: string): boolean {
  let literals = LITERALS.get(pattern);
  if (literals === undefined) {
    literals = literalsOf(pattern);
    LITERALS.set(pattern, literals);
  }
  if (literals.length === 0) return true;
  for (const literal of literals) if (lowerText.includes(literal)) return true;
  return false;
}
