/**
 * @module
 * The text the catalog scans: bounded in size, reduced to error events for SSE streams, and
 * normalized so that one pattern serves every envelope (JSON, double-encoded JSON, Python reprs,
 * bytes reprs, terminal wraps, lower-cased logs).
 */

/** Characters kept from the start of a long body: provider errors lead with their message. */
export const SCAN_HEAD_CHARS = 32_768;
/** Characters kept from the end of a long body: a stream's error event comes last. */
export const SCAN_TAIL_CHARS = 16_384;
/** The longest text any pattern ever runs on (head, a separator, tail). */
export const MAX_SCAN_CHARS = SCAN_HEAD_CHARS + SCAN_TAIL_CHARS + 3;

/** Keeps the first {@link SCAN_HEAD_CHARS} and the last {@link SCAN_TAIL_CHARS} of a long text. */
export function capScanText(text: string): string {
  if (text.length <= SCAN_HEAD_CHARS + SCAN_TAIL_CHARS) return text;
  return `${text.slice(0, SCAN_HEAD_CHARS)}\n…\n${text.slice(text.length - SCAN_TAIL_CHARS)}`;
}

export const SSE_DATA_LINE = /^[ \t]*data:/m;
export const ERROR_WORD = /error|fail|exceeded/i;

/**
 * An SSE stream reduced to its error events: `data:` payloads of an `event:` named like an error, or
 * that mention an error, a failure or an exceeded limit (OpenAI Responses `response.failed`, `error`
 * events, OpenRouter's error chunk in a 200 stream). Content deltas are dropped, so a model that writes
 * about context windows does not read as an overflow. Text that is not SSE comes back unchanged.
 */
export function errorEventsOf(text: string): string {
  if (!SSE_DATA_LINE.test(text)) return text;
  const kept: string[] = [];
  let event = '';
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '') {
      event = '';
    } else if (trimmed.startsWith('data:')) {
      const payload = trimmed.slice(5);
      if (ERROR_WORD.test(event) || ERROR_WORD.test(payload)) kept.push(payload);
    } else if (trimmed.startsWith('event:')) {
      event = trimmed.slice(6);
    } else if (!trimmed.startsWith('id:') && !trimmed.startsWith('retry:') && !trimmed.startsWith(':')) {
      kept.push(line);
    }
  }
  return kept.join('\n');
}

export const WRAPPED_WORD = /(\w)\r?\n[ \t]*(?=\w)/g;

/**
 * Joins words a terminal hard-wrapped ("maximum context lengt\nh is"), or `undefined` when the text
 * has no newline between two word characters. Only tried when the plain text yields no figures: a
 * newline that replaced a space must stay a space.
 */
export function joinWrappedWords(text: string): string | undefined {
  WRAPPED_WORD.lastIndex = 0;
  if (!WRAPPED_WORD.test(text)) return undefined;
  return text.replace(WRAPPED_WORD, '$1');
}

/**
 * One run of backslashes and what follows it. The run is taken whole and the tail always matches, so
 * the expression never backtracks into the run (a lookahead after `\\+` would make a long run of
 * backslashes quadratic).
 */
export const ESCAPE_RUN = /\\+(u[0-9a-fA-F]{4}|[\s\S])?/g;

function unescapeRun(run: string, tail: string | undefined): string {
  if (tail === undefined) return run;
  if (tail.length === 5) return String.fromCharCode(Number.parseInt(tail.slice(1), 16));
  if (tail === '"' || tail === "'" || tail === '/') return tail;
  if (tail === 'n' || tail === 'r' || tail === 't') return ' ';
  return run + tail;
}

/**
 * A run of whitespace, control characters and terminal box drawing (logos, frames) that is not
 * already one plain space: collapsed to one space. A lone space is left alone, so ordinary prose
 * costs no replacement. The run after the first character is taken whole and cannot fail, so the
 * expression never backtracks.
 */
export const SPACE_RUN =
  / ?(?:[^\S ]|[\u0000-\u001f\u007f\u2500-\u259f])[\s\u0000-\u001f\u007f\u2500-\u259f]*| {2,}[\s\u0000-\u001f\u007f\u2500-\u259f]*/g;

/**
 * A run of `\xHH` escapes, as Python prints the bytes of a UTF-8 string (`organization\xe2\x80\x99s`).
 * Bounded: at most 12 bytes a run, the longest a few characters need.
 */
export const BYTE_ESCAPE_RUN = /(?:\\x[0-9a-fA-F]{2}){1,12}/g;

function decodeByteEscapes(run: string): string {
  const bytes = new Uint8Array(run.length / 4);
  for (let index = 0; index < bytes.length; index += 1)
    bytes[index] = Number.parseInt(run.slice(index * 4 + 2, index * 4 + 4), 16);
  const decoded = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  return decoded.includes('\ufffd') ? run : decoded;
}

/**
 * Undoes the envelopes providers and clients wrap messages in: Python bytes escapes of UTF-8
 * (`\xe2\x80\x99`), `\uXXXX` escapes, backslashes before quotes (JSON inside JSON, Python reprs),
 * `\n` `\r` `\t` escapes, typographic quotes; then collapses every run of whitespace, control
 * characters (binary garbage included) and terminal box drawing into one space.
 */
export function normalizeScanText(text: string): string {
  const bytesDecoded = text.includes('\\x') ? text.replace(BYTE_ESCAPE_RUN, decodeByteEscapes) : text;
  const unescaped = bytesDecoded.includes('\\')
    ? bytesDecoded.replace(ESCAPE_RUN, (match: string, tail: string | undefined) =>
        unescapeRun(match.slice(0, match.length - (tail?.length ?? 0)), tail),
      )
    : bytesDecoded;
  return unescaped
    .replace(/[\u2018\u2019\u201b\u2032]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(SPACE_RUN, ' ');
}
