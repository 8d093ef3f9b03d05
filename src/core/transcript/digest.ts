/**
 * @module
 * A fast, dependency-free digest of text and of message lists: for telling histories apart (a
 * remembered anchor, a remembered compaction), not for secrets.
 */
import type { Message } from './types.js';

/**
 * FNV-1a over UTF-16 code units in two 32-bit lanes with different offsets (64 bits in all), as
 * 16 hex digits. Deterministic; the same text gives the same digest in every process.
 */
export function fnv1a64(text: string): string {
  let a = 0x811c9dc5;
  let b = 0xcbf29ce4;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x01000193) ^ (a >>> 7);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

/** The digest of messages (or tool definitions) as JSON, one per line. */
export function digestItems(items: readonly object[], hash: (text: string) => string = fnv1a64): string {
  return hash(items.map((item) => JSON.stringify(item)).join('\n'));
}

/** The digest of a message list. */
export function digestMessages(messages: readonly Message[], hash?: (text: string) => string): string {
  return digestItems(messages, hash);
}
