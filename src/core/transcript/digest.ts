/**
 * @module
 * A fast, dependency-free fingerprint of texts and of message lists: for telling content apart (a
 * stored compression entry, a remembered anchor, a remembered compaction), not for secrets.
 *
 * A message's or tool definition's fingerprint is made from its fields, strings hashed two UTF-16
 * code units at a time, and kept per object: a history resent with the same objects (a loop, or a
 * body read again: the converters hand back the objects they made before) is fingerprinted by
 * folding the kept fingerprints, a few integer operations a message.
 */
import type { Message } from './types.js';

/** MurmurHash3's 32-bit block constants and finalizer (Austin Appleby, public domain). */
const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;
const FINAL_1 = 0x85ebca6b;
const FINAL_2 = 0xc2b2ae35;
/** Seeds of the two lanes: FNV-1a's offset basis and another odd constant. */
const SEED_A = 0x811c9dc5;
const SEED_B = 0x9747b28c;

/** A fingerprint in progress: two 32-bit lanes and the number of code units hashed. */
interface Lanes {
  a: number;
  b: number;
  length: number;
}

function mixWord(lanes: Lanes, word: number): void {
  let k = Math.imul(word, C1);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, C2);
  let a = lanes.a ^ k;
  a = (a << 13) | (a >>> 19);
  lanes.a = (Math.imul(a, 5) + 0xe6546b64) | 0;
  const b = Math.imul(lanes.b ^ k, FINAL_1);
  lanes.b = b ^ (b >>> 13);
}

/** Hashes a string into the lanes, two code units per step, then its length (so 'ab','c' ≠ 'a','bc'). */
function mixText(lanes: Lanes, text: string): void {
  const length = text.length;
  let index = 0;
  for (; index + 1 < length; index += 2)
    mixWord(lanes, text.charCodeAt(index) | (text.charCodeAt(index + 1) << 16));
  if (index < length) mixWord(lanes, text.charCodeAt(index) | 0x10000);
  mixWord(lanes, length ^ 0x7fff0000);
  lanes.length += length + 1;
}

function finish(value: number): string {
  let mixed = value;
  mixed = Math.imul(mixed ^ (mixed >>> 16), FINAL_1);
  mixed = Math.imul(mixed ^ (mixed >>> 13), FINAL_2);
  mixed ^= mixed >>> 16;
  return (mixed >>> 0).toString(16).padStart(8, '0');
}

function render(lanes: Lanes): string {
  return `${lanes.length.toString(36)}.${finish(lanes.a)}${finish(lanes.b ^ lanes.a)}`;
}

/**
 * A 64-bit fingerprint of some texts, with their lengths: `"<length>.<16 hex digits>"`. Not a
 * cryptographic hash, and it need not be: the text it guards is never shown to the party that would
 * have to forge a match, so only accidental equality matters, and 64 bits plus the length make that
 * negligible. Pure and fast (two multiplications per pair of UTF-16 code units).
 *
 * @example
 * contentHash(['read_file', '{"path":"a.ts"}', 'file body']); // '30.5f0c…'
 */
export function contentHash(texts: readonly string[]): string {
  const lanes: Lanes = { a: SEED_A, b: SEED_B, length: 0 };
  for (const text of texts) mixText(lanes, text);
  return render(lanes);
}

/** The fingerprint of one text: {@link contentHash} of it alone. */
export function hashText(text: string): string {
  return contentHash([text]);
}

/** Tags of the structure walked into an item's fingerprint, apart from any string's code units. */
const OBJECT = 0x7fff0001;
const ARRAY = 0x7fff0002;
const END = 0x7fff0003;
const NUMBER = 0x7fff0004;
const OTHER = 0x7fff0005;

function mixValue(lanes: Lanes, value: unknown, depth: number): void {
  if (typeof value === 'string') mixText(lanes, value);
  else if (typeof value === 'number') {
    mixWord(lanes, NUMBER);
    mixText(lanes, String(value));
  } else if (typeof value !== 'object' || value === null || depth > 64) {
    mixWord(lanes, OTHER);
    mixText(lanes, depth > 64 ? JSON.stringify(value) : String(value));
  } else mixContainer(lanes, value, depth);
}

function mixContainer(lanes: Lanes, value: object, depth: number): void {
  if (Array.isArray(value)) {
    mixWord(lanes, ARRAY);
    for (const item of value) mixValue(lanes, item, depth + 1);
  } else {
    mixWord(lanes, OBJECT);
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (record[key] === undefined) continue;
      mixText(lanes, key);
      mixValue(lanes, record[key], depth + 1);
    }
  }
  mixWord(lanes, END);
}

/** Fingerprints of items (messages, tool definitions), per object: items are treated as immutable. */
const ITEM_DIGESTS = new WeakMap<object, Lanes>();

function itemLanes(item: object): Lanes {
  let lanes = ITEM_DIGESTS.get(item);
  if (lanes === undefined) {
    lanes = { a: SEED_A, b: SEED_B, length: 0 };
    mixValue(lanes, item, 0);
    ITEM_DIGESTS.set(item, lanes);
  }
  return lanes;
}

/**
 * A value made from a list of items, remembered with the items it was made from under the list's
 * last item: the same objects again give the same value without making it (items are treated as
 * immutable). A history resent with every request is the same objects again, one more each time.
 *
 * @example
 * const hashes = new ListMemo<string>();
 * hashes.get(head, () => sha256(head.map((message) => JSON.stringify(message)).join('\n')));
 */
export class ListMemo<V> {
  readonly #byLast = new WeakMap<object, { items: readonly object[]; value: V }>();

  get(items: readonly object[], make: () => V): V {
    const last = items.at(-1);
    if (last === undefined) return make();
    const known = this.#byLast.get(last);
    if (
      known !== undefined &&
      known.items.length === items.length &&
      known.items.every((item, index) => item === items[index])
    )
      return known.value;
    const value = make();
    this.#byLast.set(last, { items: items.slice(), value });
    return value;
  }
}

/** Per caller's hash function, the lists hashed with it. */
const HASHED_LISTS = new WeakMap<(text: string) => string, ListMemo<string>>();

/**
 * The fingerprint of messages (or tool definitions). By default each item's fingerprint is made
 * from its fields (what `JSON.stringify` writes), once per object, and the list's from them; given
 * `hash`, it is `hash` of the items as JSON, one per line (a caller's own hash, such as SHA-256).
 *
 * @example
 * digestItems(request.tools) === anchor.tools; // the same tool definitions were sent
 */
export function digestItems(items: readonly object[], hash?: (text: string) => string): string {
  if (hash !== undefined) {
    let lists = HASHED_LISTS.get(hash);
    if (lists === undefined) {
      lists = new ListMemo<string>();
      HASHED_LISTS.set(hash, lists);
    }
    return lists.get(items, () => hash(items.map((item) => JSON.stringify(item)).join('\n')));
  }
  const lanes: Lanes = { a: SEED_A, b: SEED_B, length: 0 };
  for (const item of items) {
    const own = itemLanes(item);
    mixWord(lanes, own.a);
    mixWord(lanes, own.b);
    lanes.length += own.length + 1;
  }
  return render(lanes);
}

/** The fingerprint of a message list. */
export function digestMessages(messages: readonly Message[], hash?: (text: string) => string): string {
  return digestItems(messages, hash);
}
