import { estimateTokens } from '../core/index.js';

/**
 * How much one tool result may take, in estimated tokens, for the model in use: the chat gives its
 * tools a third of the prompt budget, so a large file or a chatty command cannot crowd out the rest
 * of the conversation (the newest tool result is never compressed or pruned).
 */
export interface OutputLimit {
  /** Estimated tokens one result may take (`Infinity`: no limit besides the characters cap). */
  tokens(): number;
  /** The model, for the tokenizer family of the estimate. */
  model?: string;
}

/**
 * The most characters of one line a tool result shows (a minified bundle is one line of 160 KB: whole,
 * it could never fit a result, and a reader that only cuts between lines would make no progress).
 */
export const LINE_MAX_CHARS = 2_000;

/**
 * A line cut to `maxChars` characters, with a marker that says how much is left out; shorter lines
 * come back unchanged.
 *
 * @example
 * cutLine({ line: 'x'.repeat(5_000), maxChars: 2_000 }); // 'xx…x [… 3,000 more characters on this line]'
 */
export function cutLine({ line, maxChars = LINE_MAX_CHARS }: { line: string; maxChars?: number }): string {
  if (line.length <= maxChars) return line;
  // Never split a surrogate pair: the cut text stays valid UTF-16.
  let end = Math.max(0, maxChars);
  const code = line.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${line.slice(0, end)} [… ${(line.length - end).toLocaleString('en-US')} more characters on this line]`;
}

/** No limit besides each tool's characters cap. */
export const NO_OUTPUT_LIMIT: OutputLimit = { tokens: () => Number.POSITIVE_INFINITY };

/**
 * How many of `lines`, from the first, fit in `maxChars` characters and the limit's tokens. Lines
 * are estimated one by one and added up, which never counts fewer tokens than the joined text.
 *
 * @example
 * const kept = linesThatFit({ lines, maxChars: 64_000, limit }); // lines.slice(0, kept)
 */
export function linesThatFit({
  lines,
  maxChars,
  limit,
}: {
  lines: readonly string[];
  maxChars: number;
  limit: OutputLimit;
}): number {
  const maxTokens = limit.tokens();
  const options = limit.model === undefined ? {} : { model: limit.model };
  let chars = 0;
  let tokens = 0;
  let kept = 0;
  for (const line of lines) {
    chars += line.length + 1;
    if (chars > maxChars) break;
    if (Number.isFinite(maxTokens)) {
      tokens += estimateTokens(`${line}\n`, options).total;
      if (tokens > maxTokens) break;
    }
    kept++;
  }
  return kept;
}

/**
 * The first line of a result when not even it fits: cut (by halves) until its estimate fits the limit
 * and `maxChars`, so a reader always makes progress. Never shorter than 200 characters.
 *
 * @example
 * const shown = lineThatFits({ line: minified, maxChars: 64_000, limit }); // '…[… 158,000 more characters on this line]'
 */
export function lineThatFits({
  line,
  maxChars,
  limit,
}: {
  line: string;
  maxChars: number;
  limit: OutputLimit;
}): string {
  const maxTokens = limit.tokens();
  const options = limit.model === undefined ? {} : { model: limit.model };
  let chars = Math.min(line.length, maxChars);
  for (;;) {
    const cut = cutLine({ line, maxChars: chars });
    if (chars <= 200 || !Number.isFinite(maxTokens) || estimateTokens(cut, options).total <= maxTokens)
      return cut;
    chars = Math.floor(chars / 2);
  }
}
