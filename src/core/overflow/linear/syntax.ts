/**
 * @module
 * The syntax tree of a linear pattern and the character tests it uses. A subset of JavaScript regular
 * expressions that a Thompson NFA runs in time linear in the text: no backreferences, no lookaround.
 */

/** A character test: one UTF-16 code unit in, matched or not. */
export type CharTest = (code: number) => boolean;

/** A node of the pattern's syntax tree. */
export type PatternNode =
  | { type: 'char'; code: number }
  /** `negated` inverts the set after case folding, as a `[^…]` class does. */
  | { type: 'set'; test: CharTest; negated?: boolean }
  | { type: 'any' }
  | { type: 'assert'; kind: 'start' | 'end' | 'word-boundary' | 'not-word-boundary' }
  | { type: 'group'; index: number | undefined; name: string | undefined; body: PatternNode }
  | { type: 'alternation'; alternatives: PatternNode[] }
  | { type: 'sequence'; items: PatternNode[] }
  | {
      type: 'repeat';
      body: PatternNode;
      min: number;
      max: number;
      greedy: boolean;
      /** Capture groups inside the body, cleared at each iteration as JavaScript does. */
      groups: { first: number; last: number } | undefined;
      /** Where the quantifier starts in the source, for messages. */
      at: number;
    };

/** JavaScript's `\s`: the ECMAScript WhiteSpace and LineTerminator code points. */
export const isSpace: CharTest = (code) =>
  code === 0x20 ||
  (code >= 0x09 && code <= 0x0d) ||
  code === 0xa0 ||
  code === 0x1680 ||
  (code >= 0x2000 && code <= 0x200a) ||
  code === 0x2028 ||
  code === 0x2029 ||
  code === 0x202f ||
  code === 0x205f ||
  code === 0x3000 ||
  code === 0xfeff;

/** JavaScript's `\d`. */
export const isDigit: CharTest = (code) => code >= 0x30 && code <= 0x39;

/** JavaScript's `\w` (without the `u` flag, case folding does not widen it). */
export const isWord: CharTest = (code) =>
  isDigit(code) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f;

/** What `.` matches without the `s` flag: anything but a line terminator. */
export const isNotLineTerminator: CharTest = (code) =>
  code !== 0x0a && code !== 0x0d && code !== 0x2028 && code !== 0x2029;

/**
 * ECMAScript's Canonicalize for case-insensitive matching without the `u` flag: the upper case of a
 * code unit when it is one code unit and does not turn a non-ASCII character into an ASCII one.
 */
export function canonicalize(code: number): number {
  const upper = String.fromCharCode(code).toUpperCase();
  if (upper.length !== 1) return code;
  const folded = upper.charCodeAt(0);
  return code >= 128 && folded < 128 ? code : folded;
}

/** A set test made case-insensitive: a code unit matches when one of its case variants is in the set. */
export function foldSet(test: CharTest): CharTest {
  return (code) => {
    if (test(code)) return true;
    const text = String.fromCharCode(code);
    const lower = text.toLowerCase();
    const upper = text.toUpperCase();
    return (
      (lower.length === 1 &&
        canonicalize(lower.charCodeAt(0)) === canonicalize(code) &&
        test(lower.charCodeAt(0))) ||
      (upper.length === 1 &&
        canonicalize(upper.charCodeAt(0)) === canonicalize(code) &&
        test(upper.charCodeAt(0)))
    );
  };
}
