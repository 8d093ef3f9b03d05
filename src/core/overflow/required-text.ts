/**
 * @module
 * A quick test before a catalog row's pattern runs: literals one of which every match of the pattern
 * contains, lower-cased, each with a whole word inside it. The words of a text are gathered once;
 * a row whose words are all missing is skipped with a few hash lookups, and `includes` runs only for
 * the rows that pass, then the pattern itself.
 */
import { requiredLiterals } from './linear/linear-pattern.js';
import { parseLinearPattern } from './linear/parse-pattern.js';
import type { OverflowMatcher } from './types.js';

/** One literal a match requires, and a whole word inside it (`''` when it has none). */
interface Literal {
  text: string;
  word: string;
}

/** Literals by catalog, computed once per list of rows: a row's pattern never changes. */
const LITERALS = new WeakMap<readonly { pattern: OverflowMatcher }[], ReadonlyArray<readonly Literal[]>>();

/** The source a catalog figure fragment reads as (a lookahead the linear parser leaves out). */
const FIGURE_LOOKAHEAD = /\(\?!\\d\)/g;
const WORD_SEPARATOR = /[^a-z0-9_]+/;

/** Words that {@link wordsOf} gathers: 3 to 24 characters, starting with a letter (a-z). */
const MIN_WORD = 3;
const MAX_WORD = 24;

function indexable(word: string): boolean {
  return word.length >= MIN_WORD && word.length <= MAX_WORD && /^[a-z]/.test(word);
}

/** The longest indexable word of `literal` with a separator on both sides within it: whole in any text it is in. */
function innerWord(literal: string): string {
  const words = literal.split(WORD_SEPARATOR).slice(1, -1).filter(indexable);
  return words.reduce((longest, word) => (word.length > longest.length ? word : longest), '');
}

function literalsOf(pattern: OverflowMatcher): readonly Literal[] {
  if (!pattern.flags.includes('i')) return [];
  const parsed = parseLinearPattern(pattern.source.replace(FIGURE_LOOKAHEAD, ''));
  if (!parsed.success) return [];
  return requiredLiterals(parsed.tree).map((literal) => {
    const text = literal.toLowerCase();
    return { text, word: innerWord(text) };
  });
}

/** For each row of `rows`, the literals one of which every match of its pattern contains (`[]`: always runs). */
export function requiredLiteralsOf(
  rows: readonly { pattern: OverflowMatcher }[],
): ReadonlyArray<readonly Literal[]> {
  let literals = LITERALS.get(rows);
  if (literals === undefined) {
    literals = rows.map((row) => literalsOf(row.pattern));
    LITERALS.set(rows, literals);
  }
  return literals;
}

function isWordCode(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 95;
}

/** The indexable words of a lower-cased text, for {@link holdsOneOf}: one pass, no intermediate array. */
export function wordsOf(lowerText: string): Set<string> {
  const words = new Set<string>();
  let start = -1;
  for (let index = 0; index <= lowerText.length; index += 1) {
    const word = index < lowerText.length && isWordCode(lowerText.charCodeAt(index));
    if (word && start < 0) start = index;
    else if (!word && start >= 0) {
      const length = index - start;
      const first = lowerText.charCodeAt(start);
      if (length >= MIN_WORD && length <= MAX_WORD && first >= 97) words.add(lowerText.slice(start, index));
      start = -1;
    }
  }
  return words;
}

/** Whether the text holds one of `literals` (always, when there are none). */
export function holdsOneOf(
  lowerText: string,
  words: ReadonlySet<string>,
  literals: readonly Literal[],
): boolean {
  if (literals.length === 0) return true;
  for (const literal of literals)
    if ((literal.word === '' || words.has(literal.word)) && lowerText.includes(literal.text)) return true;
  return false;
}
