/**
 * @module
 * Seeded randomness for the emulators. Every draw is keyed by what it is for (a seed, a purpose and
 * an index: `createRandom(seed, 'reply', 3)`), never by how many draws came before, so the reply to
 * the fourth turn is the same whether or not earlier requests were retried, faulted or skipped.
 */

/** A source of numbers in [0, 1), plus the helpers the generators use. */
export interface Random {
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  /** `length` characters from `alphabet`. */
  chars(length: number, alphabet?: string): string;
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** FNV-1a over the keys, as the 32-bit state of the generator. */
function hashKeys(keys: readonly (string | number)[]): number {
  let hash = 0x811c9dc5;
  for (const key of keys) {
    const text = `${key}\u0000`;
    for (let index = 0; index < text.length; index += 1) {
      hash ^= text.charCodeAt(index);
      hash = Math.imul(hash, 0x01000193);
    }
  }
  return hash >>> 0;
}

/**
 * A deterministic generator (mulberry32) seeded from `keys`.
 *
 * @example
 * createRandom(42, 'reply', 0).int(1, 6) === createRandom(42, 'reply', 0).int(1, 6); // true
 */
export function createRandom(...keys: (string | number)[]): Random {
  let state = hashKeys(keys);
  const next = (): number => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    chars: (length, alphabet = BASE62) => {
      let out = '';
      for (let index = 0; index < length; index += 1) out += alphabet[Math.floor(next() * alphabet.length)];
      return out;
    },
  };
}
