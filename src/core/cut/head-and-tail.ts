/**
 * @module
 * The one head-and-tail cutter: a text kept to its start and its end, a marker between. A shortened
 * newest result, a tool result cut when it returns and the texts a summary is asked to read all keep
 * their ends this way, each with its own share and marker.
 */

/** What was cut, for the marker to say: the middle's lines and characters, and the kept ends. */
export interface CutMiddle {
  lines: number;
  chars: number;
  head: string;
  tail: string;
}

/** How {@link keepEnds} divides what it keeps. */
export interface KeepEndsOptions {
  /** Share of the kept characters taken from the start (default 2/3: the start says what the text is). */
  headShare?: number;
  /**
   * Whether the cut moves to a line break near each end (default true), so no kept line is broken:
   * the head back to a break in its second half, the tail forward to one in its first half.
   */
  atLines?: boolean;
}

/**
 * The text kept to about `keep` characters: its start and its end, the marker between on a line of
 * its own. A text no longer than `keep` is returned as it is.
 *
 * @example
 * keepEnds(log, 2_000, ({ lines }) => `[… ${lines} lines cut …]`);
 * keepEnds(text, 600, ({ chars }) => `[… ${chars} characters cut …]`, { headShare: 0.7, atLines: false });
 */
export function keepEnds(
  text: string,
  keep: number,
  marker: (cut: CutMiddle) => string,
  { headShare = 2 / 3, atLines = true }: KeepEndsOptions = {},
): string {
  if (keep >= text.length) return text;
  const kept = Math.max(0, keep);
  let headEnd = Math.floor(kept * headShare);
  let tailStart = text.length - (kept - headEnd);
  if (atLines) {
    const newline = text.lastIndexOf('\n', headEnd);
    if (newline > headEnd / 2) headEnd = newline + 1;
    const tailNewline = text.indexOf('\n', tailStart);
    if (tailNewline !== -1 && tailNewline < tailStart + (text.length - tailStart) / 2)
      tailStart = tailNewline + 1;
  }
  if (tailStart < headEnd) tailStart = headEnd;
  const middle = text.slice(headEnd, tailStart);
  const head = text.slice(0, headEnd);
  const tail = text.slice(tailStart);
  const lines = middle.length === 0 ? 0 : middle.split('\n').length;
  return `${head}\n${marker({ lines, chars: middle.length, head, tail })}\n${tail}`;
}
