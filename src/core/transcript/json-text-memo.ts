/**
 * @module
 * JSON request bodies parsed from where they changed. A client resends its whole conversation with
 * every request, so the text of a request starts with the text of the one before; parsing it all
 * again (and checking its depth again) costs as much as the history. A {@link JsonTextMemo} keeps
 * recent bodies with an outline of their top-level object (its keys, and where each item of its
 * arrays ends). A new body that starts with a remembered one, unit for unit, up to the end of an
 * item, is parsed from there on: what came before is the remembered value's, item objects and all,
 * and the value is the one `JSON.parse` would give. When it also ends as the remembered one ends
 * after that array (the tools and settings a client sends after its messages), only the items
 * between are parsed, and the fields after them are the remembered ones. Those items are shared,
 * so they are frozen (with everything in them); the body's own fields are the caller's.
 *
 * A body is JSON text or its UTF-8 bytes, as an HTTP server receives them. Bytes are compared as
 * bytes and only the part after the shared items is decoded, so a resent history is never decoded
 * again; a Node `Buffer` is compared with its own native `compare`, any other `Uint8Array` eight
 * bytes at a time. The bytes remembered are a copy (the caller may reuse its buffer) with room after
 * it: a resend that replaces the body it was read from writes only what it adds into that room.
 * A copy the memo drops is given back to the allocator at once (see {@link giveBack}).
 * Offsets (how much was reused, where a body nests too deep) count the body's own units: UTF-16 code
 * units of a text, bytes of bytes.
 */
import {
  CLOSE_ARRAY,
  isRecord,
  isSpace,
  type JsonDepthExcess,
  MAX_JSON_DEPTH,
  type Outline,
  type ScanFrom,
  scanJsonText,
} from './json-depth.js';

/** A JSON body: its text, or its UTF-8 bytes. */
export type JsonBody = string | Uint8Array;

/** Whether `body` is a JSON body still to be read (text or bytes), not a parsed value. */
export function isJsonBody(body: unknown): body is JsonBody {
  return typeof body === 'string' || body instanceof Uint8Array;
}

/** What {@link JsonTextMemo.read} made of a body. */
export type JsonTextRead =
  | {
      kind: 'value';
      value: unknown;
      /** Units not parsed again (characters of a text, bytes of bytes). */
      reused: number;
    }
  | { kind: 'too_deep'; excess: JsonDepthExcess }
  | { kind: 'not_json'; error: Error };

/** Options of a {@link JsonTextMemo}. */
export interface JsonTextMemoOptions {
  /** The most units remembered (characters of texts, bytes of bytes), over all bodies (default 8 Mi). */
  maxChars?: number;
  /** The most bodies remembered (default 256). */
  maxTexts?: number;
  /** Bodies shorter than this (in units) are parsed whole and not remembered (default 4 Ki). */
  minChars?: number;
  /** Levels a body may nest (default {@link MAX_JSON_DEPTH}). */
  maxDepth?: number;
}

/** Units of a body's start (at most `minChars`) that pick the remembered bodies it is compared with. */
const HEAD = 256;
/** Units compared at a time when looking for where two bodies part. */
const CHUNK = 16_384;
/** Room kept after a remembered body's bytes for what later resends add, as a share of its length. */
const ROOM = 0.25;
/** Remembered bodies sharing one start, at most (one per conversation that began alike). */
const MAX_BUCKET = 16;
/**
 * What tells a conversation's own previous body: a remembered body that shares this share of a new
 * one is taken without looking at the others, and a new body that holds this share of the one it
 * was read from (its start, and its end when that ends both alike: see {@link sameEnd}) takes its
 * place (else it is remembered beside it).
 */
const CLOSE_ENOUGH = 0.9;

/**
 * Where two runs of `count` units first differ (`count` when they do not), found with `same(from,
 * to)`, a native comparison of a stretch, which stops at the first difference: all but the last
 * stretch of {@link CHUNK} at once (a resend parts from what is kept near its end), then halving,
 * and the last few units one by one with `sameAt`.
 */
function firstDifference(
  count: number,
  same: (from: number, to: number) => boolean,
  sameAt: (index: number) => boolean,
): number {
  let low = 0;
  let high = count;
  const most = count - Math.min(count, CHUNK);
  if (most > 0) {
    if (same(0, most)) low = most;
    else high = most;
  }
  while (high - low > 16) {
    const middle = (low + high) >>> 1;
    if (same(low, middle)) low = middle;
    else high = middle;
  }
  while (low < high && sameAt(low)) low++;
  return low;
}

/** Where two texts first differ (the length of the shorter when one starts with the other). */
export function commonPrefixLength(left: string, right: string): number {
  return firstDifference(
    Math.min(left.length, right.length),
    (from, to) => left.slice(from, to) === right.slice(from, to),
    (index) => left.charCodeAt(index) === right.charCodeAt(index),
  );
}

/** A Node `Buffer`'s own comparison: `source[sourceStart, sourceEnd)` against `target[targetStart, targetEnd)`. */
type NativeCompare = (
  this: Uint8Array,
  target: Uint8Array,
  targetStart: number,
  targetEnd: number,
  sourceStart: number,
  sourceEnd: number,
) => number;

/** The native comparison `bytes` brings along (a Node `Buffer` does), if any. */
function nativeCompare(bytes: Uint8Array): NativeCompare | undefined {
  const compare = (bytes as { compare?: unknown }).compare;
  return typeof compare === 'function' ? (compare as NativeCompare) : undefined;
}

/**
 * How many of their first `count` bytes `bytes` and `kept` share, without a native comparison: eight
 * bytes at a time (one float of 64 bits) where both line up on eight, which they do when `kept` was
 * placed as the body it was copied from lay ({@link keptBytes}) and `bytes` lie as that one did; a
 * byte at a time elsewhere. Floats that compare equal with other bits (zeros) or unequal with the
 * same bits (NaN) are settled byte by byte.
 */
function sharedBytesByWords(bytes: Uint8Array, kept: Uint8Array, count: number): number {
  let low = 0;
  const shift = bytes.byteOffset % 8;
  if (shift === kept.byteOffset % 8) {
    const lead = Math.min(count, (8 - shift) % 8);
    while (low < lead && bytes[low] === kept[low]) low++;
    const words = (count - lead) >>> 3;
    // Views start on eight only past a full lead (a short stretch has no words to compare).
    if (low === lead && words > 0) {
      const left = new Float64Array(bytes.buffer, bytes.byteOffset + lead, words);
      const right = new Float64Array(kept.buffer, kept.byteOffset + lead, words);
      let word = 0;
      for (; word < words; word++) {
        const value = left[word] as number;
        if (value !== right[word] || value === 0) break;
      }
      low = lead + word * 8;
    }
  }
  while (low < count && bytes[low] === kept[low]) low++;
  return low;
}

/** Where `bytes` first differs from `kept` (the length of the shorter when one starts with the other). */
export function commonBytePrefixLength(kept: Uint8Array, bytes: Uint8Array): number {
  const count = Math.min(kept.length, bytes.length);
  const compare = nativeCompare(bytes);
  if (compare === undefined) return sharedBytesByWords(bytes, kept, count);
  return firstDifference(
    count,
    (from, to) => compare.call(bytes, kept, from, to, from, to) === 0,
    (index) => bytes[index] === kept[index],
  );
}

/** UTF-8 as `Buffer.toString` reads it: a byte order mark kept (JSON has none), bad bytes replaced. */
const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });
const STRICT_UTF8 = new TextDecoder('utf-8', { ignoreBOM: true, fatal: true });

/** Whether `bytes` decoded as `text` were valid UTF-8 (a replacement character may be their own). */
function validUtf8(text: string, bytes: Uint8Array): boolean {
  if (!text.includes('\uFFFD')) return true;
  try {
    STRICT_UTF8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

const ENCODER = new TextEncoder();
/** Room for encoding one stretch of text between two offsets (grown as needed). */
let scratch = new Uint8Array(16_384);

/**
 * The byte offsets, in the UTF-8 encoding of `text`, of the code units at `positions` (ascending,
 * none inside a surrogate pair): each stretch between two is encoded natively into scratch room and
 * its bytes counted. Exact for text decoded from valid UTF-8, where every code unit stands for its
 * own bytes.
 */
function byteOffsets(text: string, positions: readonly number[]): number[] {
  const offsets: number[] = [];
  let bytes = 0;
  let index = 0;
  for (const position of positions) {
    if (position > index) {
      // At most three bytes per code unit (a surrogate pair is four bytes for two).
      if (scratch.length < (position - index) * 3) scratch = new Uint8Array((position - index) * 3);
      bytes += ENCODER.encodeInto(text.slice(index, position), scratch).written;
      index = position;
    }
    offsets.push(bytes);
  }
  return offsets;
}

/** Bytes as a text of one code unit per byte, for a scan whose offsets must be bytes. */
function unitPerByte(bytes: Uint8Array): string {
  let text = '';
  for (let at = 0; at < bytes.length; at += 8_192)
    text += String.fromCharCode(...bytes.subarray(at, Math.min(bytes.length, at + 8_192)));
  return text;
}

/** What a scan of a body from some point gives: the text from there (for the parse) and any excess. */
interface Scanned {
  text: string;
  excess?: JsonDepthExcess;
  /** False when the outline's offsets could not be made exact (bytes that are not UTF-8). */
  exact: boolean;
}

/**
 * Scans `body` from `from.at` for nesting deeper than `maxDepth`, adding to `outline`: a text as
 * {@link scanJsonText} does, bytes with {@link scanBytes}. Gives the text from `from.at` on, for the
 * parse.
 */
function scanBody(body: JsonBody, maxDepth: number, from: ScanFrom, outline?: Outline): Scanned {
  if (typeof body !== 'string') return scanBytes(body, maxDepth, from, outline);
  const excess = scanJsonText(body, maxDepth, from, outline);
  return { text: from.at === 0 ? body : body.slice(from.at), ...(excess ? { excess } : {}), exact: true };
}

/**
 * Scans `bytes` from `from.at` as {@link scanJsonText} scans a text, adding to `outline` and giving
 * offsets in bytes. The part from `from.at` on (it starts a character: it follows the end of an
 * item) is decoded once and scanned, and the offsets found are turned into bytes. Bytes that are not
 * UTF-8 are scanned a unit per byte for the excess; their outline is not exact.
 */
function scanBytes(bytes: Uint8Array, maxDepth: number, from: ScanFrom, outline?: Outline): Scanned {
  const part = bytes.subarray(from.at);
  const text = UTF8.decode(part);
  const known = outline?.ends.length ?? 0;
  const found = scanJsonText(text, maxDepth, { ...from, at: 0 }, outline);
  const ends = outline?.ends ?? [];
  const moved = (offsets: readonly number[]): void => {
    for (let index = known; index < ends.length; index++)
      ends[index] = (offsets[index - known] as number) + from.at;
  };
  if (text.length === part.length) {
    // A unit per byte (ASCII, or a bad byte read as one replacement character): the text's offsets,
    // moved to where the part starts.
    moved(ends.slice(known));
    return { text, ...(found ? { excess: { ...found, offset: found.offset + from.at } } : {}), exact: true };
  }
  if (!validUtf8(text, part)) {
    const byByte = scanJsonText(unitPerByte(part), maxDepth, { ...from, at: 0 });
    return {
      text,
      ...(byByte ? { excess: { ...byByte, offset: byByte.offset + from.at } } : {}),
      exact: false,
    };
  }
  const offsets = byteOffsets(text, [...ends.slice(known), ...(found ? [found.offset] : [])]);
  moved(offsets);
  const excess = found ? { ...found, offset: (offsets.at(-1) as number) + from.at } : undefined;
  return { text, ...(excess ? { excess } : {}), exact: true };
}

/**
 * Whether `count` units of `body` from `at` are those of the remembered `kept` from `keptAt` (texts
 * compared natively; bytes with a Node `Buffer`'s own comparison, else one by one).
 */
function sameUnits(body: JsonBody, at: number, kept: JsonBody, keptAt: number, count: number): boolean {
  if (typeof body === 'string' || typeof kept === 'string')
    return (
      typeof body === 'string' &&
      typeof kept === 'string' &&
      body.startsWith(kept.slice(keptAt, keptAt + count), at)
    );
  const compare = nativeCompare(body);
  if (compare !== undefined) return compare.call(body, kept, keptAt, keptAt + count, at, at + count) === 0;
  for (let index = 0; index < count; index++) if (body[at + index] !== kept[keptAt + index]) return false;
  return true;
}

/** The unit at `at` of a body (a UTF-16 code unit of a text, a byte of bytes), -1 past its end. */
const unitAt = (body: JsonBody, at: number): number =>
  at >= body.length ? -1 : typeof body === 'string' ? body.charCodeAt(at) : (body[at] as number);

/** What may follow an item of an array: a comma or the array's end, after any whitespace. */
const AFTER_ITEM = /^[ \t\r\n]*[,\]]/;
/** Items that may follow an item, up to the array's end: none, or a comma first. */
const ITEMS_AFTER_ITEM = /^[ \t\r\n]*(,|$)/;

/** The last index `i` with `ends[i] < below`, or -1. */
function lastEndBefore(ends: readonly number[], below: number): number {
  let low = 0;
  let high = ends.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((ends[middle] as number) < below) low = middle + 1;
    else high = middle;
  }
  return low - 1;
}

/** What {@link sameEnd} finds. */
interface SameEnd {
  /** The last item of the remembered body that ends within the units the body shares with it. */
  last: number;
  /** The last item of that item's array that the outline knows of. */
  lastItem: number;
  /** Where that array's closing bracket is in the remembered body. */
  close: number;
  /** Units from that bracket to the remembered body's end (the bracket and the fields after it). */
  after: number;
}

/**
 * Where the array that a body's first `shared` units reach into (past the end of its item `last`)
 * closes in the remembered body `base`, when the body ends as `base` does from that bracket on;
 * else `undefined`.
 */
function sameEnd(body: JsonBody, base: Remembered, shared: number): SameEnd | undefined {
  const { outline } = base;
  const last = lastEndBefore(outline.ends, shared);
  if (last === -1) return undefined;
  const key = outline.endKey[last] as number;
  let lastItem = last;
  while (outline.endKey[lastItem + 1] === key) lastItem++;
  const kept = bodyOf(base);
  let close = (outline.ends[lastItem] as number) + 1;
  while (isSpace(unitAt(kept, close))) close++;
  if (unitAt(kept, close) !== CLOSE_ARRAY) return undefined;
  const after = base.length - close;
  const stop = body.length - after;
  if (stop <= (outline.ends[last] as number) || !sameUnits(body, stop, kept, close, after)) return undefined;
  return { last, lastItem, close, after };
}

interface Remembered {
  /** The body: its text, or its bytes (the first `length` of `room`, the rest free for what is added). */
  text: string | undefined;
  room: Uint8Array | undefined;
  /** Its length in units. */
  length: number;
  value: Record<string, unknown>;
  outline: Outline;
  /** Its keys as `JSON.parse` reads them, in the order of `outline.keys`. */
  names: string[];
}

type Failure = Exclude<JsonTextRead, { kind: 'value' }>;

/** A value read, with what to remember of it (nothing for a body that cannot be read from later). */
interface Made {
  kind: 'value';
  value: unknown;
  reused: number;
  remember?: Pick<Remembered, 'value' | 'outline' | 'names'>;
}

/**
 * The keys' names (the first of them `known` already), or `undefined` when one is written twice or
 * is `__proto__` (then the body is parsed whole).
 */
function namesOf(rawKeys: readonly string[], known: readonly string[] = []): string[] | undefined {
  const names = known.slice();
  for (let index = known.length; index < rawKeys.length; index++)
    names.push(JSON.parse(rawKeys[index] as string));
  if (names.includes('__proto__') || new Set(names).size !== names.length) return undefined;
  return names;
}

/** Items of remembered bodies: frozen, whole, and shared by every body that holds them. */
const SHARED_ITEMS = new WeakSet<object>();

/** Freezes an item of a remembered body, and everything in it. */
function freezeItem<T>(item: T): T {
  if (typeof item !== 'object' || item === null || SHARED_ITEMS.has(item)) return item;
  freezeDeep(item);
  SHARED_ITEMS.add(item);
  return item;
}

function freezeDeep(value: object): void {
  for (const child of Object.values(value))
    if (typeof child === 'object' && child !== null) freezeDeep(child);
  Object.freeze(value);
}

/**
 * Whether `value` is an item of a body read by a {@link JsonTextMemo}: frozen with all it
 * holds, so the same object always has the same content.
 */
export function isSharedItem(value: unknown): boolean {
  return typeof value === 'object' && value !== null && SHARED_ITEMS.has(value);
}

/**
 * A remembered body as handed out: its fields' arrays anew around the same items (items are shared,
 * as messages are), anything else copied, so a caller that changes a field of its body changes
 * nothing remembered.
 */
function ownFields(body: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(body)) {
    const value = body[key];
    setField(copy, key, Array.isArray(value) ? value.slice() : copyJson(value));
  }
  return copy;
}

/** A parsed JSON value copied, every object and array new (parsed values nest within the depth limit). */
function copyJson(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copyJson);
  const copy: Record<string, unknown> = {};
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) setField(copy, key, copyJson(record[key]));
  return copy;
}

/** Sets a field as `JSON.parse` does: a `"__proto__"` key is a field, not the record's prototype. */
function setField(record: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  else record[key] = value;
}

const emptyOutline = (): Outline => ({ keys: [], ends: [], endKey: [], endItem: [] });

/**
 * The first `count` items of a remembered array, then the items of `parsed` after its first, the
 * stand-in `0` that what follows a shared item is parsed behind, frozen: a new array, the
 * remembered one as it was.
 */
function itemsThen(kept: readonly unknown[], count: number, parsed: readonly unknown[]): unknown[] {
  const items = kept.slice(0, count);
  for (let index = 1; index < parsed.length; index++) items.push(freezeItem(parsed[index]));
  return items;
}

/** A remembered body's own units: its text, or its bytes (without the room after them). */
const bodyOf = (entry: Remembered): JsonBody =>
  entry.text ?? (entry.room as Uint8Array).subarray(0, entry.length);

/** Units a remembered body holds: its text, or its bytes with their room. */
const held = (entry: Remembered): number => entry.room?.length ?? entry.length;

/**
 * The key of a body's bucket: its kind and its first `count` units (bytes decoded: a character cut
 * at the end, or bad bytes, decode alike every time, and the bucket only picks what to compare).
 */
function headOf(body: JsonBody, count: number): string {
  return typeof body === 'string' ? `t${body.slice(0, count)}` : `b${UTF8.decode(body.subarray(0, count))}`;
}

/**
 * Frees a copy of bytes the memo no longer holds, at the next minor collection rather than the next
 * major one. A copy outlives the young generation, so dropped it would wait for a major collection,
 * and V8 starts one for memory outside its heap only after tens of megabytes of it: freed in
 * between, the allocator's pages stay with the process. Moved into a new, unreferenced buffer (a
 * transfer moves the memory without copying it), it goes with that buffer.
 */
function giveBack(bytes: Uint8Array): void {
  const { buffer } = bytes;
  if (buffer instanceof ArrayBuffer) structuredClone(buffer, { transfer: [buffer] });
}

/**
 * The bytes to remember of `body`: written into `room`, the bytes of the body it replaces, after the
 * `shared` ones they start with, when they fit (that body is forgotten); else a copy with room after
 * it, placed as `body` lies modulo eight bytes so that the two line up for comparing.
 */
function keptBytes(body: Uint8Array, shared: number, room: Uint8Array | undefined): Uint8Array {
  if (room !== undefined && shared > 0 && body.length <= room.length) {
    room.set(body.subarray(shared), shared);
    return room;
  }
  const shift = body.byteOffset % 8;
  const copy = new Uint8Array(shift + Math.ceil(body.length * (1 + ROOM))).subarray(shift);
  copy.set(body);
  return copy;
}

/**
 * Recent JSON bodies, each with its parsed value and its outline (see the module comment); a body is
 * read from where it parts from the remembered body of its kind (text or bytes) it shares the longest
 * start with. Values handed out share their objects with earlier ones: treat them as immutable, as
 * Spillway treats messages.
 *
 * @example
 * const memo = new JsonTextMemo();
 * memo.read(JSON.stringify(body)); // { kind: 'value', value: …, reused: 0 }
 * memo.read(JSON.stringify({ ...body, messages: [...body.messages, next] })).reused; // most of it
 */
export class JsonTextMemo {
  readonly #buckets = new Map<string, Remembered[]>();
  readonly #maxChars: number;
  readonly #maxTexts: number;
  readonly #minChars: number;
  readonly #maxDepth: number;
  #chars = 0;
  #texts = 0;

  constructor({
    maxChars = 8 * 1024 * 1024,
    maxTexts = 256,
    minChars = 4096,
    maxDepth = MAX_JSON_DEPTH,
  }: JsonTextMemoOptions = {}) {
    this.#maxChars = maxChars;
    this.#maxTexts = maxTexts;
    this.#minChars = Math.max(minChars, 1);
    this.#maxDepth = maxDepth;
  }

  /** Bodies remembered. */
  get size(): number {
    return this.#texts;
  }

  /** Units remembered (characters of texts, bytes of bytes). */
  get chars(): number {
    return this.#chars;
  }

  /**
   * The value of `body` (as `JSON.parse` gives it for the text, or for the bytes decoded as UTF-8), or
   * why there is none: nesting deeper than the memo's `maxDepth` (where it first goes too deep, in
   * the body's units), or a body that is not JSON (`JSON.parse`'s error).
   */
  read(body: JsonBody): JsonTextRead {
    // Any body from `minChars` on may be read from a remembered one; it is kept itself only when it
    // takes at most a quarter of what the memo holds.
    const readable = body.length >= this.#minChars;
    const kept = readable && body.length <= this.#maxChars / 4;
    const head = headOf(body, Math.min(HEAD, this.#minChars));
    const bucket = readable ? this.#buckets.get(head) : undefined;
    const base = bucket && this.#longestShared(bucket, body);
    if (base && base.shared === body.length && base.remembered.length === body.length) {
      // Sent again as it was (a retry, or clients that send one request alike): nothing to read,
      // the remembered body only remembered again (last in the eviction order).
      this.#remember(head, base.remembered, base.remembered);
      return { kind: 'value', value: ownFields(base.remembered.value), reused: body.length };
    }
    const same = base && sameEnd(body, base.remembered, base.shared);
    // A body that goes on from the one it was read from takes its place (and its outline, extended
    // in place rather than copied); one that only opens alike (another conversation
    // with the same start) is remembered beside it. What it holds of that one: its start, and its
    // end when both end alike (a long tool list after a short conversation is most of a body).
    const holds =
      base && (same ? (base.remembered.outline.ends[same.last] as number) + 1 + same.after : base.shared);
    const continued =
      base && kept && (holds ?? 0) >= base.remembered.length * CLOSE_ENOUGH ? base.remembered : undefined;
    const made =
      (base && this.#parseFrom(body, base.remembered, base.shared, continued !== undefined, same)) ??
      this.#parseWhole(body, kept);
    if (made.kind !== 'value' || made.remember === undefined) {
      // What was taken over is no longer what that body holds.
      if (continued) this.#forget(head, continued);
      return made.kind === 'value' ? { kind: 'value', value: made.value, reused: made.reused } : made;
    }
    if (kept) {
      // Every entry is made with the same fields in the same order: one shape for every read of them.
      const { value, outline, names } = made.remember;
      const text = typeof body === 'string' ? body : undefined;
      const room =
        typeof body === 'string'
          ? undefined
          : keptBytes(body, continued ? (base?.shared ?? 0) : 0, continued?.room);
      this.#remember(head, { text, room, length: body.length, value, outline, names }, continued);
    }
    return { kind: 'value', value: ownFields(made.remember.value), reused: made.reused };
  }

  /** The remembered body of `bucket` (all of `body`'s kind) that shares the longest start with `body`. */
  #longestShared(
    bucket: Remembered[],
    body: JsonBody,
  ): { remembered: Remembered; shared: number } | undefined {
    let best: { remembered: Remembered; shared: number } | undefined;
    for (let index = bucket.length - 1; index >= 0; index--) {
      const remembered = bucket[index] as Remembered;
      const shared =
        typeof body === 'string'
          ? commonPrefixLength(remembered.text ?? '', body)
          : commonBytePrefixLength(remembered.room?.subarray(0, remembered.length) ?? new Uint8Array(), body);
      if (best === undefined || shared > best.shared) best = { remembered, shared };
      // The conversation's own previous body shares nearly all of it; others share their start.
      if (shared >= body.length * CLOSE_ENOUGH) break;
    }
    return best;
  }

  /** `body` parsed and scanned whole; remembered (`remember` set) when it is an object with distinct keys. */
  #parseWhole(body: JsonBody, rememberable: boolean): Failure | Made {
    // A body that will not be kept needs only the depth check, no outline.
    const scanned = rememberable ? emptyOutline() : undefined;
    const start = { at: 0, depth: 0, key: -1, item: 0 };
    const { text, excess, exact } = scanBody(body, this.#maxDepth, start, scanned);
    if (excess) return { kind: 'too_deep', excess };
    // Bytes that are not UTF-8 give no outline to read from later.
    const outline = exact ? scanned : undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return { kind: 'not_json', error: error as Error };
    }
    const names = outline !== undefined && isRecord(value) ? namesOf(outline.keys) : undefined;
    if (outline === undefined || names === undefined || !isRecord(value))
      return { kind: 'value', value, reused: 0 };
    for (const field of Object.values(value))
      if (Array.isArray(field)) for (const item of field) freezeItem(item);
    return { kind: 'value', value, reused: 0, remember: { value, outline, names } };
  }

  /**
   * `body` read from the end of the last item it shares with `base`: the rest scanned and parsed as
   * the tail of an object holding that item's array, the value put together from `base`'s keys before
   * it, the array's items up to it, and the tail. `undefined` when it cannot be (nothing shared, a key
   * of the tail already seen, a tail that is not JSON or not UTF-8): the caller then parses it whole.
   * With `takeOver` (the body replaces `base`), `base`'s outline is cut back and extended in place:
   * the caller forgets `base` if the body is not remembered in its place. Values are never changed
   * in place: two remembered bodies may hold the same array (a field before or after the one read).
   */
  #parseFrom(
    body: JsonBody,
    base: Remembered,
    shared: number,
    takeOver: boolean,
    same: SameEnd | undefined,
  ): Failure | Made | undefined {
    const { outline } = base;
    const last = same?.last ?? lastEndBefore(outline.ends, shared);
    if (last === -1) return undefined;
    const end = outline.ends[last] as number;
    const key = outline.endKey[last] as number;
    const item = outline.endItem[last] as number;
    const keysBefore = key + 1;
    const cut = <T>(list: T[], count: number): T[] => {
      if (!takeOver) return list.slice(0, count);
      list.length = count;
      return list;
    };
    const between = same && this.#parseBetween(body, base, same, cut);
    if (between !== undefined) return between;
    const next: Outline = {
      keys: cut(outline.keys, keysBefore),
      ends: cut(outline.ends, last + 1),
      endKey: cut(outline.endKey, last + 1),
      endItem: cut(outline.endItem, last + 1),
    };
    const {
      text: rest,
      excess,
      exact,
    } = scanBody(body, this.#maxDepth, { at: end + 1, depth: 2, key, item }, next);
    if (excess) return { kind: 'too_deep', excess };
    if (!exact) return undefined;
    // The keys up to the array's are the remembered text's, read then.
    const names = namesOf(next.keys, base.names.slice(0, keysBefore));
    if (names === undefined) return undefined;
    const rawKey = outline.keys[key] as string;
    // After an item comes a comma or the array's end: anything else (`.5`, `e3`) would go on from
    // the stand-in item below as JSON.parse reads it.
    if (!AFTER_ITEM.test(rest)) return undefined;
    let tail: unknown;
    try {
      tail = JSON.parse(`{${rawKey}:[0${rest}`);
    } catch {
      return undefined;
    }
    if (!isRecord(tail)) return undefined;
    const value: Record<string, unknown> = {};
    for (let index = 0; index < key; index++) {
      const name = names[index] as string;
      value[name] = base.value[name];
    }
    const arrayName = names[key] as string;
    value[arrayName] = itemsThen(base.value[arrayName] as unknown[], item + 1, tail[arrayName] as unknown[]);
    for (let index = keysBefore; index < names.length; index++) {
      const name = names[index] as string;
      const field = tail[name];
      if (Array.isArray(field)) for (const each of field) freezeItem(each);
      value[name] = field;
    }
    return { kind: 'value', value, reused: end + 1, remember: { value, outline: next, names } };
  }

  /**
   * `body` read as `base` with items added (or taken) at the end of the array the remembered item
   * `same.last` is in, when what follows that array in `base` (its closing bracket, the fields after
   * it) ends `body` unit for unit ({@link sameEnd}): a client resends its tools and settings after
   * its messages, and only the items between are scanned and parsed. The fields after the array are
   * `base`'s values (their text is the same), their outline moved by the change in length.
   * `undefined` when what is between is not a run of items: nothing of `base` was changed then.
   */
  #parseBetween(
    body: JsonBody,
    base: Remembered,
    { last, lastItem, close, after }: SameEnd,
    cut: <T>(list: T[], count: number) => T[],
  ): Failure | Made | undefined {
    const { outline } = base;
    const key = outline.endKey[last] as number;
    const item = outline.endItem[last] as number;
    const start = (outline.ends[last] as number) + 1;
    const stop = body.length - after;
    const added = emptyOutline();
    const part = typeof body === 'string' ? body.slice(0, stop) : body.subarray(0, stop);
    const { text, excess, exact } = scanBody(part, this.#maxDepth, { at: start, depth: 2, key, item }, added);
    if (excess) return { kind: 'too_deep', excess };
    if (!exact || added.keys.length > 0) return undefined;
    // Items after an item: nothing, or a comma first (see `AFTER_ITEM`).
    if (!ITEMS_AFTER_ITEM.test(text)) return undefined;
    let items: unknown;
    try {
      items = JSON.parse(`[0${text}]`);
    } catch {
      return undefined;
    }
    if (!Array.isArray(items)) return undefined;
    // The outline: base's up to `last`, the items added, then what follows the array as base's
    // outline has it, moved to where it lies in `body`.
    const later = {
      ends: outline.ends.slice(lastItem + 1),
      endKey: outline.endKey.slice(lastItem + 1),
      endItem: outline.endItem.slice(lastItem + 1),
    };
    const next: Outline = {
      keys: cut(outline.keys, outline.keys.length),
      ends: cut(outline.ends, last + 1),
      endKey: cut(outline.endKey, last + 1),
      endItem: cut(outline.endItem, last + 1),
    };
    for (const [run, moved] of [
      [added, 0],
      [later, stop - close],
    ] as const)
      for (let index = 0; index < run.ends.length; index++) {
        next.ends.push((run.ends[index] as number) + moved);
        next.endKey.push(run.endKey[index] as number);
        next.endItem.push(run.endItem[index] as number);
      }
    const value: Record<string, unknown> = {};
    const arrayName = base.names[key] as string;
    for (const name of base.names) value[name] = base.value[name];
    value[arrayName] = itemsThen(base.value[arrayName] as unknown[], item + 1, items);
    return {
      kind: 'value',
      value,
      reused: start + after,
      remember: { value, outline: next, names: base.names },
    };
  }

  #remember(head: string, entry: Remembered, replaced: Remembered | undefined): void {
    let bucket = this.#buckets.get(head);
    if (bucket !== undefined) {
      // Freshly used: to the end of the eviction order.
      this.#buckets.delete(head);
      const at = replaced ? bucket.indexOf(replaced) : -1;
      if (at !== -1) this.#drop(bucket, at, entry);
      else if (bucket.length >= MAX_BUCKET) this.#drop(bucket, 0);
    } else bucket = [];
    bucket.push(entry);
    this.#buckets.set(head, bucket);
    this.#chars += held(entry);
    this.#texts += 1;
    for (const [oldest, texts] of this.#buckets) {
      if (this.#chars <= this.#maxChars && this.#texts <= this.#maxTexts) break;
      while (texts.length > 0 && (this.#chars > this.#maxChars || this.#texts > this.#maxTexts))
        this.#drop(texts, 0);
      if (texts.length === 0) this.#buckets.delete(oldest);
    }
  }

  /** Forgets one remembered body of the bucket `head`. */
  #forget(head: string, entry: Remembered): void {
    const bucket = this.#buckets.get(head);
    const at = bucket ? bucket.indexOf(entry) : -1;
    if (bucket === undefined || at === -1) return;
    this.#drop(bucket, at);
    if (bucket.length === 0) this.#buckets.delete(head);
  }

  /** Drops a remembered body; a copy of its bytes that `successor` does not write on is given back. */
  #drop(bucket: Remembered[], at: number, successor?: Remembered): void {
    const [gone] = bucket.splice(at, 1);
    if (gone === undefined) return;
    this.#chars -= held(gone);
    this.#texts -= 1;
    if (gone.room !== undefined && gone.room !== successor?.room) giveBack(gone.room);
  }

  /** Forgets every body. */
  clear(): void {
    for (const bucket of this.#buckets.values())
      for (const entry of bucket) if (entry.room !== undefined) giveBack(entry.room);
    this.#buckets.clear();
    this.#chars = 0;
    this.#texts = 0;
  }
}

/** The bodies every reader of JSON text shares: the converters' and the proxy's. */
const BODIES = new JsonTextMemo();

/**
 * The value of a JSON body (its text, or its UTF-8 bytes), read from where it parts from a recent
 * body (see {@link JsonTextMemo}), or why there is none: nesting deeper than {@link MAX_JSON_DEPTH},
 * or a body that is not JSON. The items of a remembered body's arrays are frozen: they are shared
 * with the reads before and after.
 *
 * @example
 * const read = readJsonText(Buffer.concat(chunks));
 * if (read.kind === 'value') console.log(read.reused); // bytes not parsed again
 */
export function readJsonText(body: JsonBody): JsonTextRead {
  return BODIES.read(body);
}
