/**
 * @module
 * Figures as providers and clients print them: plain (`131072`), grouped by thousands with commas,
 * spaces, narrow or non-breaking spaces, underscores or apostrophes (`128,000`, `128 000`,
 * `128_000`, `128'000`), with the odd space inside a group separator (`128, 000` never counts: a
 * comma followed by a space separates two figures).
 */

/** Characters that group thousands: comma, underscore, apostrophe, and every kind of space. */
export const GROUP_SEPARATORS = ",_'\u0020\u00a0\u2009\u202f";

/**
 * Digits, optionally grouped by thousands. One path, no alternation: each separator must be followed by
 * exactly three digits and no fourth, so the fragment never backtracks into a digit run. A first group
 * longer than three digits (`20000 000`) still matches here and is refused by {@link parseFigure}.
 */
export const GROUPED_DIGITS = `\\d+(?:[${GROUP_SEPARATORS}]\\d{3}(?!\\d))*`;

const WHOLE_FIGURE = new RegExp(`^(?:\\d{1,3}(?:[${GROUP_SEPARATORS}]\\d{3})+|\\d+)$`);
const SEPARATOR = new RegExp(`[${GROUP_SEPARATORS}]`, 'g');

/**
 * The integer a figure states, or `undefined` when the text is not a figure or does not fit a safe
 * integer. Leading and trailing spaces are ignored; groups must have three digits.
 *
 * @example
 * parseFigure('128,000'); // 128000
 * parseFigure('1 048 576'); // 1048576
 * parseFigure('12,34'); // undefined
 */
export function parseFigure(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  if (trimmed.length === 0 || trimmed.length > 40 || !WHOLE_FIGURE.test(trimmed)) return undefined;
  const value = Number(trimmed.replace(SEPARATOR, ''));
  return Number.isSafeInteger(value) ? value : undefined;
}
