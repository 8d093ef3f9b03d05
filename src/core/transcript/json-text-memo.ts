/**
 * @module
 * JSON request bodies parsed from where they changed. A client resends its whole conversation with
 * every request, so the text of a request starts with the text of the one before; parsing it all
 * again (and checking its depth again) costs as much as the history. A {@link JsonTextMemo} keeps
 * recent bodies with an outline of their top-level object (its keys, and where each item of its
 * arrays ends). A new text that starts with a remembered one, character for character, up to the
 * end of an item, is parsed from there on: what came before is the remembered value's, item objects
 * and all, and the value is the one `JSON.parse` would give. Those items are shared, so they are
 * frozen (with everything in them); the body's own fields are the caller's.
 */
import { isRecord, type JsonDepthExcess, MAX_JSON_DEPTH, type Outline, scanJsonText } from './json-depth.js';

/** What {@link JsonTextMemo.read} made of a text. */
export type JsonTextRead =
  | {
      kind: 'value';
      value: unknown;
      /** Characters not parsed again. */
      reused: number;
    }
  | { kind: 'too_deep'; excess: JsonDepthExcess }
  | { kind: 'not_json'; error: Error };

/** Options of a {@link JsonTextMemo}. */
export interface JsonTextMemoOptions {
  /** The most characters of text remembered, over all texts (default 8 Mi). */
  maxChars?: number;
  /** The most texts remembered (default 256). */
  maxTexts?: number;
  /** Texts shorter than this are parsed whole and not remembered (default 4 Ki). */
  minChars?: number;
  /** Levels a text may nest (default {@link MAX_JSON_DEPTH}). */
  maxDepth?: number;
}

/** Characters of a text's start (at most `minChars`) that pick the remembered texts it is compared with. */
const HEAD = 256;
/** Characters compared at a time when looking for where two texts part. */
const CHUNK = 16_384;
/** Remembered texts sharing one start, at most (one per conversation that began alike). */
const MAX_BUCKET = 16;
/**
 * What tells a conversation's own previous body: a remembered text that shares this share of a new
 * one is taken without looking at the others, and a new text that shares this share of the one it
 * was read from takes its place (else it is remembered beside it).
 */
const CLOSE_ENOUGH = 0.9;

/** Where two texts first differ (the length of the shorter when one starts with the other). */
export function commonPrefixLength(left: string, right: string): number {
  const limit = Math.min(left.length, right.length);
  let low = 0;
  let high = limit;
  // Chunk by chunk (each a native comparison), then halving inside the chunk that differs.
  while (low < limit) {
    const end = Math.min(limit, low + CHUNK);
    if (left.slice(low, end) !== right.slice(low, end)) {
      high = end;
      break;
    }
    low = end;
  }
  while (high - low > 16) {
    const middle = (low + high) >>> 1;
    if (left.slice(low, middle) === right.slice(low, middle)) low = middle;
    else high = middle;
  }
  while (low < high && left.charCodeAt(low) === right.charCodeAt(low)) low++;
  return low;
}

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

interface Remembered {
  text: string;
  value: Record<string, unknown>;
  outline: Outline;
  /** Its keys as `JSON.parse` reads them, in the order of `outline.keys`. */
  names: string[];
}

type Failure = Exclude<JsonTextRead, { kind: 'value' }>;

/** A value read, with what to remember of it (nothing for a text that cannot be read from later). */
interface Made {
  kind: 'value';
  value: unknown;
  reused: number;
  remember?: Remembered;
}

/**
 * The keys' names (the first of them `known` already), or `undefined` when one is written twice or
 * is `__proto__` (then the text is parsed whole).
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
 * Whether `value` is an item of a body read from text by a {@link JsonTextMemo}: frozen with all it
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
    // structuredClone defines each key (a nested "__proto__" stays a field, not a prototype).
    copy[key] = Array.isArray(value) ? value.slice() : structuredClone(value);
  }
  return copy;
}

const emptyOutline = (): Outline => ({ keys: [], ends: [], endKey: [], endItem: [] });

/**
 * Recent JSON bodies, each with its parsed value and its outline (see the module comment); a text is
 * read from where it parts from the remembered text it shares the longest start with. Values handed
 * out share their objects with earlier ones: treat them as immutable, as Spillway treats messages.
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

  /** Texts remembered. */
  get size(): number {
    return this.#texts;
  }

  /** Characters remembered. */
  get chars(): number {
    return this.#chars;
  }

  /**
   * The value of `text` (as `JSON.parse` gives it), or why there is none: nesting deeper than the
   * memo's `maxDepth` (where it first goes too deep), or text that is not JSON (`JSON.parse`'s error).
   */
  read(text: string): JsonTextRead {
    // Any text from `minChars` on may be read from a remembered one; it is kept itself only when it
    // takes at most a quarter of what the memo holds.
    const readable = text.length >= this.#minChars;
    const kept = readable && text.length <= this.#maxChars / 4;
    const head = text.slice(0, Math.min(HEAD, this.#minChars));
    const bucket = readable ? this.#buckets.get(head) : undefined;
    const base = bucket && this.#longestShared(bucket, text);
    const made =
      (base && this.#parseFrom(text, base.remembered, base.shared)) ?? this.#parseWhole(text, kept);
    if (made.kind !== 'value') return made;
    if (made.remember === undefined) return { kind: 'value', value: made.value, reused: made.reused };
    // A text that goes on from the one it was read from takes its place; one that only opens alike
    // (another conversation with the same start) is remembered beside it.
    const continued =
      base && base.shared >= base.remembered.text.length * CLOSE_ENOUGH ? base.remembered : undefined;
    if (kept) this.#remember(head, made.remember, continued);
    return { kind: 'value', value: ownFields(made.remember.value), reused: made.reused };
  }

  /** The remembered text of `bucket` that shares the longest start with `text`. */
  #longestShared(bucket: Remembered[], text: string): { remembered: Remembered; shared: number } | undefined {
    let best: { remembered: Remembered; shared: number } | undefined;
    for (let index = bucket.length - 1; index >= 0; index--) {
      const remembered = bucket[index] as Remembered;
      const shared = commonPrefixLength(remembered.text, text);
      if (best === undefined || shared > best.shared) best = { remembered, shared };
      // The conversation's own previous body shares nearly all of it; others share their start.
      if (shared >= text.length * CLOSE_ENOUGH) break;
    }
    return best;
  }

  /** `text` parsed and scanned whole; remembered (`remember` set) when it is an object with distinct keys. */
  #parseWhole(text: string, rememberable: boolean): Failure | Made {
    // A text that will not be kept needs only the depth check, no outline.
    const outline = rememberable ? emptyOutline() : undefined;
    const excess = scanJsonText(text, this.#maxDepth, { at: 0, depth: 0, key: -1, item: 0 }, outline);
    if (excess) return { kind: 'too_deep', excess };
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
    return { kind: 'value', value, reused: 0, remember: { text, value, outline, names } };
  }

  /**
   * `text` read from the end of the last item it shares with `base`: the rest scanned and parsed as
   * the tail of an object holding that item's array, the value put together from `base`'s keys before
   * it, the array's items up to it, and the tail. `undefined` when it cannot be (nothing shared, a key
   * of the tail already seen, a tail that is not JSON): the caller then parses the text whole.
   */
  #parseFrom(text: string, base: Remembered, shared: number): Failure | Made | undefined {
    const { outline } = base;
    const last = lastEndBefore(outline.ends, shared);
    if (last === -1) return undefined;
    const end = outline.ends[last] as number;
    const key = outline.endKey[last] as number;
    const item = outline.endItem[last] as number;
    const keysBefore = key + 1;
    const next: Outline = {
      keys: outline.keys.slice(0, keysBefore),
      ends: outline.ends.slice(0, last + 1),
      endKey: outline.endKey.slice(0, last + 1),
      endItem: outline.endItem.slice(0, last + 1),
    };
    const excess = scanJsonText(text, this.#maxDepth, { at: end + 1, depth: 2, key, item }, next);
    if (excess) return { kind: 'too_deep', excess };
    // The keys up to the array's are the remembered text's, read then.
    const names = namesOf(next.keys, base.names.slice(0, keysBefore));
    if (names === undefined) return undefined;
    const rawKey = outline.keys[key] as string;
    let tail: unknown;
    try {
      tail = JSON.parse(`{${rawKey}:[0${text.slice(end + 1)}`);
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
    const kept = base.value[arrayName] as unknown[];
    const added = tail[arrayName] as unknown[];
    const items = kept.slice(0, item + 1);
    for (let index = 1; index < added.length; index++) items.push(freezeItem(added[index]));
    value[arrayName] = items;
    for (let index = keysBefore; index < names.length; index++) {
      const name = names[index] as string;
      const field = tail[name];
      if (Array.isArray(field)) for (const each of field) freezeItem(each);
      value[name] = field;
    }
    return { kind: 'value', value, reused: end + 1, remember: { text, value, outline: next, names } };
  }

  #remember(head: string, entry: Remembered, replaced: Remembered | undefined): void {
    let bucket = this.#buckets.get(head);
    if (bucket !== undefined) {
      // Freshly used: to the end of the eviction order.
      this.#buckets.delete(head);
      const at = replaced ? bucket.indexOf(replaced) : -1;
      if (at !== -1) this.#drop(bucket, at);
      else if (bucket.length >= MAX_BUCKET) this.#drop(bucket, 0);
    } else bucket = [];
    bucket.push(entry);
    this.#buckets.set(head, bucket);
    this.#chars += entry.text.length;
    this.#texts += 1;
    for (const [oldest, texts] of this.#buckets) {
      if (this.#chars <= this.#maxChars && this.#texts <= this.#maxTexts) break;
      while (texts.length > 0 && (this.#chars > this.#maxChars || this.#texts > this.#maxTexts))
        this.#drop(texts, 0);
      if (texts.length === 0) this.#buckets.delete(oldest);
    }
  }

  #drop(bucket: Remembered[], at: number): void {
    const [gone] = bucket.splice(at, 1);
    if (gone === undefined) return;
    this.#chars -= gone.text.length;
    this.#texts -= 1;
  }

  /** Forgets every text. */
  clear(): void {
    this.#buckets.clear();
    this.#chars = 0;
    this.#texts = 0;
  }
}

/** The bodies every reader of JSON text shares: the converters' and the proxy's. */
const BODIES = new JsonTextMemo();

/**
 * The value of a JSON text, read from where it parts from a recent body (see {@link JsonTextMemo}),
 * or why there is none: nesting deeper than {@link MAX_JSON_DEPTH}, or text that is not JSON. The
 * items of a remembered body's arrays are frozen: they are shared with the reads before and after.
 *
 * @example
 * const read = readJsonText(await request.text());
 * if (read.kind === 'value') console.log(read.reused); // characters not parsed again
 */
export function readJsonText(text: string): JsonTextRead {
  return BODIES.read(text);
}
