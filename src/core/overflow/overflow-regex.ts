/**
 * @module
 * How catalog patterns are written: sources against the normalized scan text, with `{N}` for a figure.
 */
import { GROUPED_DIGITS } from './parse-figure.js';

/**
 * A figure as providers print it: digits, optionally grouped by thousands (`128,000`, `128 000`,
 * `128_000`). The grouping cannot overlap the digit run, so the fragment never backtracks; a trailing
 * comma (`200000, decrease`) is left out. The scan text has collapsed every space to one, so the
 * separators it can hold are a comma, an underscore, an apostrophe or one space.
 */
export const FIGURE_SOURCE = `(?:${GROUPED_DIGITS})`;

/**
 * Compiles a catalog pattern: `{N}` stands for {@link FIGURE_SOURCE}, matching is case-insensitive
 * (clients lower-case logs), and a single space matches the single space the scan text has wherever
 * the original had any run of whitespace.
 *
 * @example
 * overflowRegex(String.raw`prompt is too long: (?<input>{N}) tokens > (?<window>{N}) maximum`);
 */
export function overflowRegex(source: string): RegExp {
  return new RegExp(source.replaceAll('{N}', FIGURE_SOURCE), 'i');
}
