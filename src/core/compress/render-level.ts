/**
 * @module
 * The text of each compression level. Pure functions of the original text, the recall id and the
 * description, so the same result always renders to the same bytes.
 */
import type { CompressedLevel } from './compression-state.js';
import { formatCount } from './format-count.js';

/** Lines the `truncated` level keeps from the start and from the end of an output. */
export const TRUNCATED_HEAD_LINES = 12;
export const TRUNCATED_TAIL_LINES = 6;
/** A kept line longer than this is cut (minified code, one-line JSON). */
export const MAX_KEPT_LINE_CHARS = 240;

/** What a placeholder says about the result it stands for. */
export interface RenderInput {
  /** The original result text. */
  text: string;
  recallId: number;
  /** `read_file src/app.ts`. */
  description: string;
  /** Tokens of the whole original (its estimate), for the figures placeholders state. */
  tokens: number;
  /** Tokens of a text, for the part a truncation keeps. */
  count: (text: string) => number;
  /** Why the result may go first (a later edit of the same path). */
  staleBecause?: string;
  /** How to get the original back (`read it again to see it`, `recall #41 brings it back`). */
  back?: string;
}

function cutLine(line: string): string {
  return line.length <= MAX_KEPT_LINE_CHARS ? line : `${line.slice(0, MAX_KEPT_LINE_CHARS - 1)}…`;
}

function cutMarker(lines: number, tokens: number, recallId: number): string {
  const what = lines === 1 ? '1 line' : `${formatCount(lines)} lines`;
  return `[… ${what} cut (${formatCount(tokens)} tokens) · recall #${recallId}]`;
}

/**
 * Keeps whole head and tail lines around a marker; `undefined` when that would not be shorter. By
 * lines, not characters (`keepEnds` in core/cut): a level keeps a number of lines of any output.
 */
function keepEndLines(input: RenderInput, head: number, tail: number): string | undefined {
  const lines = input.text.split('\n');
  if (lines.length <= head + tail) {
    const capped = lines.map(cutLine);
    if (capped.every((line, index) => line === lines[index])) return undefined;
    const cut = input.text.length - capped.join('\n').length;
    return `${capped.join('\n')}\n[… ${formatCount(cut)} characters cut from long lines · recall #${input.recallId}]`;
  }
  const first = lines.slice(0, head).map(cutLine);
  const last = lines.slice(lines.length - tail).map(cutLine);
  // What was cut, in tokens: the whole minus what is kept (no second pass over a long output).
  const cutTokens = Math.max(0, input.tokens - input.count([...first, ...last].join('\n')));
  const parts = [...first, cutMarker(lines.length - head - tail, cutTokens, input.recallId), ...last];
  const rendered = parts.join('\n');
  return rendered.length < input.text.length ? rendered : undefined;
}

/**
 * The text of `level` for one result, or `undefined` when that level would not make it shorter (a
 * short output has nothing to truncate). `elided` always renders: one line naming the tool, what it
 * worked on and the size of what is left out (`[elided #41: read_file src/app.ts, 3,210 tokens]`).
 *
 * @example
 * renderLevel('elided', { text, recallId: 41, description: 'read_file src/app.ts', count });
 */
export function renderLevel(level: CompressedLevel, input: RenderInput): string | undefined {
  switch (level) {
    case 'truncated':
      return keepEndLines(input, TRUNCATED_HEAD_LINES, TRUNCATED_TAIL_LINES);
    case 'outline':
      return keepEndLines(input, 1, 1);
    case 'elided': {
      const stale = input.staleBecause === undefined ? '' : `; ${input.staleBecause}`;
      const back = input.back === undefined ? '' : `; ${input.back}`;
      return `[elided #${input.recallId}: ${input.description}, ${formatCount(input.tokens)} tokens${stale}${back}]`;
    }
  }
}
