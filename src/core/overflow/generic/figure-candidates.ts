/**
 * @module
 * The numbers of a scan text that can be figures, with where they sit. Identifiers, versions, dates,
 * times of day, paths and hashes hold digits too (`gpt-4o`, `claude-3-5-sonnet@20240620`, `4.104.0`,
 * `req_011CSPcw1j`, `/issues/37289`): a figure stands on its own, bounded by spaces or punctuation.
 */
import { GROUPED_DIGITS, parseFigure } from '../parse-figure.js';

/** One number of the text. */
export interface FigureCandidate {
  value: number;
  /** Index of the first digit in the text. */
  start: number;
  /** Index after the last digit. */
  end: number;
  /** Written with a minus sign (`got -7584`). */
  negative: boolean;
}

/** More numbers than this are never read: provider messages state a handful. Bounds hostile input. */
export const MAX_FIGURE_CANDIDATES = 64;

/**
 * A word glued to a figure by a client that dropped the spaces (`The prompt is2614tokens`,
 * `max_tokens=38000cannot`). Only a lower-case word of two letters or more before, three or more
 * after, and only where the word itself stands free: identifiers (`org_01hsjx`, `v1`) stay whole.
 */
/** Digits followed by a word: matched forward from the digits, so a long run is read once. */
const GLUED_AFTER = /(\d)(?=[a-z]{3,}\b)/g;
/**
 * A free-standing word glued to digits. Starts only after a delimiter, so each run of letters is
 * scanned from its start once (a lookbehind over `[a-z]{2,}` would rescan the run at every position).
 */
const GLUED_BEFORE = /(^|[\s(,;:"'`])([a-z]{2,})(?=\d+(?![\w.]))/g;

/** Puts back the spaces around figures glued to words. Returns the text unchanged when none is glued. */
export function unglueFigures(text: string): string {
  return text.replace(GLUED_AFTER, '$1 ').replace(GLUED_BEFORE, '$1$2 ');
}

const NUMBER = new RegExp(`(?<![\\w.@#$%/\\\\]|[\\w.]-)(?:${GROUPED_DIGITS})`, 'g');
/** Characters that make a digit run part of a longer token when they touch it. */
const TOKEN_CHARACTER = /[\w@#$%/\\]/;

/** A digit run that is part of a clock time or a time zone (`18:17:48`, `+02:00`), not a figure. */
function isTimePart(text: string, start: number, end: number): boolean {
  return (
    (text[start - 1] === ':' && /\d/.test(text[start - 2] ?? '')) ||
    (text[end] === ':' && /\d/.test(text[end + 1] ?? ''))
  );
}

function standsAlone(text: string, start: number, end: number): boolean {
  const before = text[start - 1];
  const after = text[end];
  if (isTimePart(text, start, end)) return false;
  if (before !== undefined && (TOKEN_CHARACTER.test(before) || before === '.')) return false;
  if (before === '-' && /[\w.]/.test(text[start - 2] ?? '')) return false;
  if (after !== undefined && TOKEN_CHARACTER.test(after)) return false;
  if ((after === '.' || after === '-') && /\w/.test(text[end + 1] ?? ''))
    return after === '.' && !/\d/.test(text[end + 1] ?? '');
  return true;
}

/** The free-standing numbers of `text`, in order, at most {@link MAX_FIGURE_CANDIDATES}. */
export function figureCandidates(text: string): FigureCandidate[] {
  const candidates: FigureCandidate[] = [];
  NUMBER.lastIndex = 0;
  for (let match = NUMBER.exec(text); match; match = NUMBER.exec(text)) {
    const start = match.index;
    const end = start + match[0].length;
    const value = parseFigure(match[0]);
    if (value === undefined || !standsAlone(text, start, end)) continue;
    candidates.push({ value, start, end, negative: text[start - 1] === '-' });
    if (candidates.length >= MAX_FIGURE_CANDIDATES) break;
  }
  return candidates;
}
