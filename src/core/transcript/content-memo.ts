/**
 * @module
 * A bounded memory of values made from JSON-like inputs, found again by the input's content: a body
 * parsed anew for every request holds new objects with the content of earlier ones, and converting
 * them again (and counting them again, and checking them again) is what made a resend cost as much
 * as the whole history. The key is cheap (the lengths of strings and a sample of their characters);
 * a hit is confirmed by comparing every string and number of the input with the remembered ones, so
 * two inputs share a value only when they are equal.
 */

/** Entries sharing one key at most (equal keys of unequal inputs are rare; this bounds a lookup). */
const MAX_BUCKET = 8;

/** Marks in a remembered input's parts; no JSON value is one of them. */
const OPEN_OBJECT = Symbol('{');
const OPEN_ARRAY = Symbol('[');
const CLOSE = Symbol(']');
const UNDEFINED = Symbol('undefined');

import { valueDepthExceeds } from './json-depth.js';
import { isSharedItem } from './json-text-memo.js';

/** What {@link walkContent} says when a value cannot be remembered. */
export type WalkFailure = 'too_deep' | 'not_json';

/** FNV-1a's 32-bit offset basis and prime (Fowler, Noll, Vo: draft-eastlake-fnv), for the key. */
const FNV_OFFSET = 0x811c9dc5;
const MIX_PRIME = 0x01000193;
/** Strings up to this long go into the key whole; longer ones by their length and a sample. */
const WHOLE_STRING = 32;
/** Characters sampled from each end of a longer string, and from along its length. */
const SAMPLED_END = 8;
const SAMPLED_ALONG = 16;
/**
 * What one part of a remembered input counts for in a memo's size, in characters, beside its own
 * characters: the slot in the parts list, and its share of the value made of the input (a message
 * object, its tool calls, what is cached on it). Measured on a proxy's memo full of small agent
 * messages, an entry kept about 2.5 KB for some 25 parts and 100 characters of strings.
 */
const PART_SIZE = 96;

const mix = (hash: number, value: number): number => Math.imul(hash ^ value, MIX_PRIME);

function mixString(start: number, text: string): number {
  const length = text.length;
  let hash = mix(start, length);
  if (length <= WHOLE_STRING) {
    for (let index = 0; index < length; index++) hash = mix(hash, text.charCodeAt(index));
    return hash;
  }
  for (let index = 0; index < SAMPLED_END; index++) {
    hash = mix(hash, text.charCodeAt(index));
    hash = mix(hash, text.charCodeAt(length - 1 - index));
  }
  const step = length / SAMPLED_ALONG;
  for (let index = 1; index < SAMPLED_ALONG; index++)
    hash = mix(hash, text.charCodeAt(Math.floor(index * step)));
  return hash;
}

function mixNumber(hash: number, value: number): number {
  return mix(mix(hash, value | 0), Math.floor(value * 4_096) | 0);
}

/** The walk's state: the parts seen so far and the running key. */
interface Walk {
  parts: unknown[];
  hash: number;
  chars: number;
}

function walkValue(value: unknown, walk: Walk, depth: number, maxDepth: number): WalkFailure | undefined {
  switch (typeof value) {
    case 'string':
      walk.parts.push(value);
      walk.hash = mixString(walk.hash, value);
      walk.chars += value.length;
      return undefined;
    case 'number':
      walk.parts.push(value);
      walk.hash = mixNumber(walk.hash, value);
      return undefined;
    case 'boolean':
      walk.parts.push(value);
      walk.hash = mix(walk.hash, value ? 1 : 2);
      return undefined;
    case 'undefined':
      walk.parts.push(UNDEFINED);
      walk.hash = mix(walk.hash, 3);
      return undefined;
    case 'object':
      break;
    default:
      return 'not_json';
  }
  if (value === null) {
    walk.parts.push(null);
    walk.hash = mix(walk.hash, 4);
    return undefined;
  }
  if (depth >= maxDepth) return 'too_deep';
  if (Array.isArray(value)) {
    walk.parts.push(OPEN_ARRAY);
    walk.hash = mix(walk.hash, 5);
    for (let index = 0; index < value.length; index++) {
      const failure = walkValue(value[index], walk, depth + 1, maxDepth);
      if (failure) return failure;
    }
  } else {
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return 'not_json';
    walk.parts.push(OPEN_OBJECT);
    walk.hash = mix(walk.hash, 6);
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      walk.parts.push(key);
      walk.hash = mixString(walk.hash, key);
      const failure = walkValue(record[key], walk, depth + 1, maxDepth);
      if (failure) return failure;
    }
  }
  walk.parts.push(CLOSE);
  walk.hash = mix(walk.hash, 7);
  return undefined;
}

/**
 * The content of a JSON-like value as a flat list of parts (strings, numbers, keys, brackets) with a
 * cheap key, or why it cannot be remembered: nesting deeper than `maxDepth` (the walk stops there),
 * or something JSON does not have (a class instance, a function, a symbol, a bigint).
 *
 * @example
 * walkContent({ role: 'user', content: 'hi' }, 8); // { parts: [Symbol({), 'role', 'user', 'content', 'hi', Symbol(])], key: …, size: 198 }
 */
export function walkContent(
  value: unknown,
  maxDepth: number,
): { parts: unknown[]; key: number; size: number } | WalkFailure {
  const walk: Walk = { parts: [], hash: FNV_OFFSET, chars: 0 };
  const failure = walkValue(value, walk, 0, maxDepth);
  return (
    failure ?? {
      parts: walk.parts,
      key: walk.hash >>> 0,
      size: walk.chars + PART_SIZE * walk.parts.length,
    }
  );
}

function sameParts(left: readonly unknown[], right: readonly unknown[]): boolean {
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index++) if (left[index] !== right[index]) return false;
  return true;
}

/**
 * Where `value`, walked as {@link walkContent} walks, stops matching `parts` from `at` on: the
 * position after it when every part matches, else -1. No key, no copy: the check of a predicted entry.
 */
function matchParts(value: unknown, parts: readonly unknown[], at: number): number {
  if (typeof value === 'string') return parts[at] === value ? at + 1 : -1;
  if (typeof value !== 'object' || value === null)
    return parts[at] === (value === undefined ? UNDEFINED : value) ? at + 1 : -1;
  return matchContainer(value, parts, at);
}

/**
 * {@link matchParts} for an array or object; its strings, the most of every message, are compared
 * in the loop, without a call each.
 */
function matchContainer(value: object, parts: readonly unknown[], at: number): number {
  let cursor = at;
  if (Array.isArray(value)) {
    if (parts[cursor++] !== OPEN_ARRAY) return -1;
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      if (typeof item === 'string') {
        if (parts[cursor++] !== item) return -1;
        continue;
      }
      cursor = matchParts(item, parts, cursor);
      if (cursor === -1) return -1;
    }
  } else {
    if (parts[cursor++] !== OPEN_OBJECT) return -1;
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return -1;
    const record = value as Record<string, unknown>;
    // Inherited enumerable keys (a polluted prototype) are not in the parts: the item does not
    // match here, and is walked and found by its key instead.
    for (const key in record) {
      if (parts[cursor++] !== key) return -1;
      const item = record[key];
      if (typeof item === 'string') {
        if (parts[cursor++] !== item) return -1;
        continue;
      }
      cursor = matchParts(item, parts, cursor);
      if (cursor === -1) return -1;
    }
  }
  return parts[cursor] === CLOSE ? cursor + 1 : -1;
}

interface Entry<V> {
  key: number;
  parts: unknown[];
  value: V;
  /** Its characters and parts, as {@link PART_SIZE} counts them. */
  size: number;
  /** The list this entry was last handed out for: within one list each value is handed out once. */
  round: number;
  /** Where in that list (a list that starts as it did hands it out at the same place, untouched). */
  at: number;
  /** Used since the eviction scan last passed it (a second chance before it is forgotten). */
  used: boolean;
  /** The input last found equal to this entry when it is a shared item (see `isSharedItem`). */
  item?: object;
  /**
   * The input its value was last handed out for: that input again (a caller that appends to its own
   * array resends the same objects) needs no `found` (its strings are held in `parts` already).
   */
  input?: unknown;
  /** The entry that came after this one in the list it was last handed out for: the first guess. */
  next?: Entry<V>;
  forgotten?: boolean;
}

const itself = <T>(value: T): T => value;

/** The last list a memo read: its items, the entry each was found or made in, and its values. */
interface LastList<V> {
  /** A copy of the list: a caller may change its own array in place and hand it in again. */
  items: unknown[];
  /** How many of its items, from the first, are shared items (see `isSharedItem`). */
  shared: number;
  entries: Array<Entry<V> | undefined>;
  /** What `select` made of each value. */
  out: unknown[];
  select: (value: V) => unknown;
}

/** Options of a {@link ContentMemo}. */
export interface ContentMemoOptions {
  /**
   * The most a memo keeps, in characters: the characters of remembered strings, and
   * {@link PART_SIZE} for each part of an input (default 8 Mi: a thousand-turn agent history counts
   * under 4 Mi).
   */
  maxSize?: number;
  /** The most remembered inputs (default 16,384). */
  maxEntries?: number;
}

/** How a list's items are read through a {@link ContentMemo}. */
export interface ReadListOptions {
  /**
   * Levels an item may nest: a deeper one is refused with `tooDeep()`, nothing made of it; without
   * `tooDeep`, it is made every time, never remembered.
   */
  maxDepth: number;
  tooDeep?: () => Error;
}

/**
 * Values made from JSON-like inputs, found again by content (see the module comment), with what
 * was least recently used forgotten first past `maxEntries` inputs or past `maxSize` (their
 * strings' characters and their parts). Items of a list are first compared with what followed the
 * previous item last time, so a resent history costs a comparison per item, with no key computed.
 * Remembered values are shared: treat them as immutable, as Spillway treats messages.
 *
 * @example
 * const memo = new ContentMemo<Message>();
 * const messages = memo.readList(body.messages, { maxDepth: 510, tooDeep }, (wire, index) => convert(wire, index));
 */
export class ContentMemo<V> {
  readonly #entries = new Map<number, Entry<V>[]>();
  readonly #maxSize: number;
  readonly #maxEntries: number;
  #total = 0;
  #size = 0;
  #round = 0;
  #last: LastList<V> | undefined;

  constructor({ maxSize = 8 * 1024 * 1024, maxEntries = 16_384 }: ContentMemoOptions = {}) {
    this.#maxSize = maxSize;
    this.#maxEntries = maxEntries;
  }

  /** Inputs remembered. */
  get size(): number {
    return this.#size;
  }

  /** What is remembered, in characters (see `maxSize`). */
  get total(): number {
    return this.#total;
  }

  /**
   * What `make` makes of each item, or what it made of an equal item before (then handed to `found`
   * with the item of this list, unless that item is the object it was last handed out for). A list
   * holding two equal items gets two values (whatever is keyed on a message object keeps them
   * apart). An item that cannot be remembered (see {@link walkContent}) is made every time. `select`
   * picks what the list holds of each value (the value itself by default); pass the same function
   * every time for a resent list to cost nothing per item.
   */
  readList<W = V>(
    items: readonly unknown[],
    { maxDepth, tooDeep }: ReadListOptions,
    make: (item: unknown, index: number) => V,
    found?: (value: V, item: unknown) => void,
    select: (value: V) => W = itself as (value: V) => W,
  ): W[] {
    // The shared items the list starts with that the last list read started with too (a resent
    // history read from text): their values are the last list's, with no entry or item looked at
    // (an item that was shared is shared for good). Nothing was read in between, so what the last
    // list pointed each entry at still holds. Compared with `Object.is`: V8 answers it for two
    // references to one object without reading the object, where `===` reads each item (measured on
    // 2,000 resent messages: 8 µs against 33 µs).
    let last = this.#last;
    let index = 0;
    if (last !== undefined && last.select === select) {
      const limit = Math.min(items.length, last.shared);
      while (index < limit && Object.is(items[index], last.items[index])) index++;
    }
    const round = ++this.#round;
    const reused = index;
    // Forgotten while it changes: a read that throws (an item that is not a message) leaves none.
    this.#last = undefined;
    if (last === undefined || index === 0)
      last = { items: [], shared: 0, entries: [], out: [], select: select as (value: V) => unknown };
    else {
      // The last list's arrays are the memo's own: cut back to the prefix and extended in place.
      last.items.length = index;
      last.entries.length = index;
      last.out.length = index;
    }
    const { entries } = last;
    // Handed out in this list already: in this round, or at its place in the prefix taken as it was.
    const taken = (entry: Entry<V>) =>
      entry.round === round || (entry.at < reused && entries[entry.at] === entry);
    const out = last.out as W[];
    const kept = last.items as unknown[];
    let shared = index;
    let previous = index > 0 ? entries[index - 1] : undefined;
    for (; index < items.length; index++) {
      const item = items[index];
      kept.push(item);
      if (shared === index && isSharedItem(item)) shared++;
      const guess = previous?.next;
      let entry: Entry<V> | undefined;
      if (
        guess !== undefined &&
        !taken(guess) &&
        !guess.forgotten &&
        // A shared item never changes: the same object is the same content.
        (guess.item === item || matchParts(item, guess.parts, 0) === guess.parts.length)
      )
        entry = guess;
      else entry = this.#lookup(item, index, { maxDepth, tooDeep, round, taken }, make);
      entries.push(entry);
      if (entry === undefined) {
        out.push(select(make(item, index)));
        previous = undefined;
        continue;
      }
      if (entry.round !== round) {
        entry.used = true;
        // The same object as last time (a caller appending to its own array): nothing to tell.
        if (entry.input !== item) {
          found?.(entry.value, item);
          entry.item = isSharedItem(item) ? (item as object) : undefined;
          entry.input = item;
        }
      }
      entry.round = round;
      entry.at = index;
      if (previous !== undefined && previous.next !== entry) previous.next = entry;
      previous = entry;
      out.push(select(entry.value));
    }
    last.shared = shared;
    this.#last = last;
    // A copy: the caller may change its list, and what the memo keeps is its own.
    return out.slice();
  }

  /** The entry for `item`: found by its key, else made and remembered; `undefined` when not rememberable. */
  #lookup(
    item: unknown,
    index: number,
    {
      maxDepth,
      tooDeep,
      round,
      taken,
    }: ReadListOptions & { round: number; taken: (entry: Entry<V>) => boolean },
    make: (item: unknown, index: number) => V,
  ): Entry<V> | undefined {
    const walked = walkContent(item, maxDepth);
    if (walked === 'too_deep') {
      if (tooDeep) throw tooDeep();
      return undefined;
    }
    if (walked === 'not_json') {
      if (tooDeep && valueDepthExceeds(item, maxDepth)) throw tooDeep();
      return undefined;
    }
    const bucket = this.#entries.get(walked.key);
    const found = bucket?.find((entry) => !taken(entry) && sameParts(entry.parts, walked.parts));
    if (found) return found;
    const entry: Entry<V> = {
      key: walked.key,
      parts: walked.parts,
      value: make(item, index),
      size: walked.size,
      round,
      at: index,
      used: false,
      input: item,
    };
    if (isSharedItem(item)) entry.item = item as object;
    this.#add(entry);
    return entry;
  }

  #add(entry: Entry<V>): void {
    if (entry.size > this.#maxSize) return;
    const bucket = this.#entries.get(entry.key);
    if (bucket === undefined) this.#entries.set(entry.key, [entry]);
    else {
      if (bucket.length >= MAX_BUCKET) this.#forget(bucket.shift() as Entry<V>);
      bucket.push(entry);
    }
    this.#total += entry.size;
    this.#size += 1;
    if (this.#size > this.#maxEntries || this.#total > this.#maxSize) this.#evict();
  }

  /**
   * Forgets the least recently used entries until the bounds hold: a scan in the order buckets were
   * added, where a bucket used since the last scan is kept and moved to the end (its use cleared).
   */
  #evict(): void {
    for (const [key, bucket] of this.#entries) {
      if (this.#size <= this.#maxEntries && this.#total <= this.#maxSize) return;
      this.#entries.delete(key);
      if (bucket.some((entry) => entry.used)) {
        for (const entry of bucket) entry.used = false;
        this.#entries.set(key, bucket);
        continue;
      }
      for (const entry of bucket) this.#forget(entry);
    }
  }

  #forget(entry: Entry<V>): void {
    entry.forgotten = true;
    entry.next = undefined;
    this.#total -= entry.size;
    this.#size -= 1;
  }

  /** Forgets everything. */
  clear(): void {
    for (const bucket of this.#entries.values()) for (const entry of bucket) entry.forgotten = true;
    this.#entries.clear();
    this.#last = undefined;
    this.#total = 0;
    this.#size = 0;
  }
}
