/**
 * @module
 * A fast, dependency-free fingerprint of texts and of message lists: for telling content apart (a
 * stored compression entry, a remembered anchor, a remembered compaction), not for secrets.
 */
import type { Message } from './types.js';

/** FNV-1a's 32-bit offset basis and prime (Fowler, Noll, Vo: draft-eastlake-fnv). */
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** A second lane with another odd multiplier and its own shift, so the two lanes do not collide together. */
const LANE_SEED = 0x9747b28c;
const LANE_MULTIPLIER = 0x5bd1e995;

function finish(value: number): string {
  let mixed = value;
  mixed = Math.imul(mixed ^ (mixed >>> 16), 0x85ebca6b);
  mixed = Math.imul(mixed ^ (mixed >>> 13), 0xc2b2ae35);
  mixed ^= mixed >>> 16;
  return (mixed >>> 0).toString(16).padStart(8, '0');
}

/**
 * A 64-bit fingerprint of some texts, with their lengths: `"<length>.<16 hex digits>"`. Not a
 * cryptographic hash, and it need not be: the text it guards is never shown to the party that would
 * have to forge a match, so only accidental equality matters, and 64 bits plus the length make that
 * negligible. Pure and fast (two multiplications per UTF-16 code unit).
 *
 * @example
 * contentHash(['read_file', '{"path":"a.ts"}', 'file body']); // '30.5f0c…'
 */
export function contentHash(texts: readonly string[]): string {
  let first = FNV_OFFSET;
  let second = LANE_SEED;
  let length = 0;
  for (const text of texts) {
    for (let index = 0; index < text.length; index++) {
      const code = text.charCodeAt(index);
      first = Math.imul(first ^ code, FNV_PRIME);
      second = Math.imul(second ^ code, LANE_MULTIPLIER);
      second ^= second >>> 15;
    }
    // A separator, so ['ab', 'c'] and ['a', 'bc'] differ.
    first = Math.imul(first ^ 0xffff, FNV_PRIME);
    second = Math.imul(second ^ 0xffff, LANE_MULTIPLIER);
    length += text.length + 1;
  }
  return `${length.toString(36)}.${finish(first)}${finish(second ^ first)}`;
}

/** The fingerprint of one text: {@link contentHash} of it alone. */
export function hashText(text: string): string {
  return contentHash([text]);
}

/** The fingerprint of messages (or tool definitions) as JSON, one per line. */
export function digestItems(items: readonly object[], hash: (text: string) => string = hashText): string {
  return hash(items.map((item) => JSON.stringify(item)).join('\n'));
}

/** The fingerprint of a message list. */
export function digestMessages(messages: readonly Message[], hash?: (text: string) => string): string {
  return digestItems(messages, hash);
}
