/**
 * @module
 * How catalog patterns are written: sources against the normalized scan text, with `{N}` for a figure.
 */

/**
 * A figure as providers print it: digits, optionally grouped by commas (`128,000`). The grouping
 * cannot overlap the digit run, so the fragment never backtracks; a trailing comma (`200000, decrease`)
 * is left out.
 */
export const FIGURE_SOURCE = String.raw`\d+(?:,\d{3})*`;

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
