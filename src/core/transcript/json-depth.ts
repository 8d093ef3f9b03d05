/**
 * @module
 * Depth limits for JSON. V8's `JSON.stringify` recurses once per level and runs out of stack a few
 * thousand levels down ("Maximum call stack size exceeded"), and `JSON.parse` of a body of 16 million
 * `[` takes seconds; a request nested that deep is an attack, not a conversation. Text is checked
 * before it is parsed, values before they are converted, both in one linear pass with no recursion.
 */

/**
 * The deepest nesting Spillway reads. Real requests nest a few dozen levels (a tool's JSON Schema
 * is the deepest part), and serde_json, under many Rust inference servers, refuses past 128 by
 * default (`Deserializer::disable_recursion_limit` docs); 512 is far above both and far below the
 * ~4,500 levels where Node 20's default stack gives out in `JSON.stringify`.
 */
export const MAX_JSON_DEPTH = 512;

/** Where a JSON text first nests deeper than `maxDepth`, and how deep it was there. */
export interface JsonDepthExcess {
  /** The offset (UTF-16 code unit; a byte offset for latin1-decoded bytes) of the bracket that went too deep. */
  offset: number;
  maxDepth: number;
}

/** The index of the quote that closes the string opened at `open`, or -1 when it is not closed. */
function closingQuote(text: string, open: number): number {
  let at = open + 1;
  for (;;) {
    at = text.indexOf('"', at);
    if (at === -1) return -1;
    let slashes = 0;
    for (let back = at - 1; back > open && text.charCodeAt(back) === 0x5c; back--) slashes++;
    if (slashes % 2 === 0) return at;
    at++;
  }
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/** A top-level object's text, cut into parts: its keys, and where the items of its arrays end. */
export interface Outline {
  /** The keys' raw JSON text (quotes and escapes as written), in order. */
  keys: string[];
  /** Where an item of a top-level array ends (its last character), in order. */
  ends: number[];
  /** Which key's array each end is in (an index into `keys`), and the item's index in that array. */
  endKey: number[];
  endItem: number[];
}

/** Where a scan resumes: inside the top-level object, in the array of key `key`, after item `item`. */
export interface ScanFrom {
  at: number;
  depth: number;
  key: number;
  item: number;
}

/** Whitespace JSON allows between tokens. */
export function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/**
 * Scans a JSON text (before parsing it) from `from` for nesting deeper than `maxDepth`: the place it
 * first goes too deep, or `undefined`. Strings are skipped whole (a native search for their closing
 * quote), so the scan costs little beyond reading the structure. With an `outline`, it also adds the
 * top-level keys and the ends of the top-level arrays' items to it. A text that is not JSON is
 * scanned as far as it goes; `JSON.parse` says what is wrong.
 */
export function scanJsonText(
  text: string,
  maxDepth: number,
  from: ScanFrom = { at: 0, depth: 0, key: -1, item: 0 },
  outline?: Outline,
): JsonDepthExcess | undefined {
  let { depth, key, item } = from;
  const length = text.length;
  for (let index = from.at; index < length; index++) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      const end = closingQuote(text, index);
      if (end === -1) return undefined;
      if (outline !== undefined) {
        if (depth === 1) {
          let next = end + 1;
          while (next < length && isSpace(text.charCodeAt(next))) next++;
          if (text.charCodeAt(next) === COLON) outline.keys.push(text.slice(index, end + 1));
        } else if (depth === 2 && key !== -1) {
          outline.ends.push(end);
          outline.endKey.push(key);
          outline.endItem.push(item);
        }
      }
      index = end;
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      if (++depth > maxDepth) return { offset: index, maxDepth };
      if (depth === 2 && outline !== undefined) {
        key = code === OPEN_ARRAY ? outline.keys.length - 1 : -1;
        item = 0;
      }
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      depth--;
      if (outline === undefined) continue;
      if (depth === 2 && key !== -1) {
        outline.ends.push(index);
        outline.endKey.push(key);
        outline.endItem.push(item);
      } else if (depth < 2) key = -1;
    } else if (code === COMMA && depth === 2 && key !== -1) item++;
  }
  return undefined;
}

/**
 * Scans a JSON text (before parsing it) for nesting deeper than `maxDepth`: the place it first goes
 * too deep, or `undefined` (see {@link scanJsonText}). Bytes decoded as latin1 scan the same way:
 * UTF-8 never uses bytes below 0x80 inside a multi-byte character.
 *
 * @example
 * jsonTextDepthExcess('['.repeat(10_000)); // { offset: 512, maxDepth: 512 }
 */
export function jsonTextDepthExcess(text: string, maxDepth = MAX_JSON_DEPTH): JsonDepthExcess | undefined {
  return scanJsonText(text, maxDepth);
}

/** Whether a value is a JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether a value nests arrays and objects deeper than `maxDepth` (an iterative walk; an object met
 * again is walked again only when met deeper, so shared structures cost little and a cycle counts
 * as too deep, as it is for `JSON.stringify`).
 *
 * @example
 * valueDepthExceeds(JSON.parse('[[[1]]]'), 2); // true
 */
export function valueDepthExceeds(value: unknown, maxDepth = MAX_JSON_DEPTH): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  const seen = new Map<object, number>();
  while (stack.length > 0) {
    const { value: item, depth } = stack.pop() as { value: unknown; depth: number };
    if (typeof item !== 'object' || item === null || (seen.get(item) ?? -1) >= depth) continue;
    if (depth + 1 > maxDepth) return true;
    seen.set(item, depth);
    const children = Array.isArray(item) ? item : Object.values(item);
    for (const child of children)
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: depth + 1 });
  }
  return false;
}

/** Values parsed from a text whose depth was scanned (within {@link MAX_JSON_DEPTH}), not walked again. */
const CHECKED_DEPTH = new WeakSet<object>();

/**
 * Records that `value` was parsed from a JSON text scanned for depth ({@link jsonTextDepthExcess}
 * found nothing), by a caller that does not change it: readers of a body skip walking it again.
 *
 * @example
 * if (read.kind === 'value') markDepthChecked(read.value);
 */
export function markDepthChecked(value: unknown): void {
  if (typeof value === 'object' && value !== null) CHECKED_DEPTH.add(value);
}

/** Whether `value` was recorded by {@link markDepthChecked}. */
export function isDepthChecked(value: unknown): boolean {
  return typeof value === 'object' && value !== null && CHECKED_DEPTH.has(value);
}

/** The message for a value or text nested too deep, saying what to do. */
export function tooDeepMessage(what: string, maxDepth = MAX_JSON_DEPTH): string {
  return `${what} nests arrays and objects deeper than ${maxDepth} levels; no conversation needs that many, so send a flatter one`;
}
