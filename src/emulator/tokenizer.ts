/**
 * @module
 * The exact tokenizers the emulators count with (gpt-tokenizer's o200k and cl100k), wrapped so that
 * no input can stall a request: text is cut into pieces of at most 2 KB of UTF-8 at whitespace before
 * it is encoded (a BPE tokenizer is quadratic on one long unbroken run; cutting this way changes the
 * total by about 0.06%, see ESTIMATION.md), and counts of long pieces are cached, since an agent loop
 * sends the same messages again with every request.
 */
import { LruCache, splitForTokenizer } from '../core/index.js';
import { requireOptional } from '../optional/index.js';

export { splitForTokenizer, TOKENIZER_CHUNK_BYTES } from '../core/index.js';

/** The tokenizers the emulators can count with. */
export type TokenizerName = 'o200k' | 'cl100k';

/** An exact tokenizer with chunked, cached counting. */
export interface Tokenizer {
  readonly name: TokenizerName;
  /** Tokens of `text`, special-token look-alikes encoded as plain text. */
  encode(text: string): number[];
  decode(tokens: readonly number[]): string;
  /** Token count of `text`, chunked at whitespace into pieces of at most 2 KB. */
  count(text: string): number;
}

const CACHE_MIN_LENGTH = 64;
const CACHE_MAX_ENTRIES = 8_192;
/** Characters of text kept as cache keys at most (about 64 MB of strings). */
const CACHE_MAX_CHARS = 32 * 1024 * 1024;
const NO_SPECIAL = { disallowedSpecial: new Set<string>() };

interface EncodingModule {
  encode(text: string, options?: { disallowedSpecial?: Set<string> }): number[];
  decode(tokens: Iterable<number>): string;
}

const MODULES: Record<TokenizerName, string> = {
  o200k: 'gpt-tokenizer/cjs/encoding/o200k_base',
  cl100k: 'gpt-tokenizer/cjs/encoding/cl100k_base',
};
const TOKENIZERS = new Map<TokenizerName, Tokenizer>();

/**
 * The tokenizer called `name`, loaded on first use and shared.
 *
 * @example
 * getTokenizer('o200k').count('Hello, world'); // 3
 */
export function getTokenizer(name: TokenizerName = 'o200k'): Tokenizer {
  const existing = TOKENIZERS.get(name);
  if (existing) return existing;
  const encoding = requireOptional<EncodingModule>({
    specifier: MODULES[name],
    feature: 'the emulator (it counts with the tokenizer the real servers use)',
  });
  const cache = new LruCache<string, number>({
    maxEntries: CACHE_MAX_ENTRIES,
    maxWeight: CACHE_MAX_CHARS,
    weigh: (text) => text.length,
  });
  const countPiece = (piece: string): number => encoding.encode(piece, NO_SPECIAL).length;
  const tokenizer: Tokenizer = {
    name,
    encode: (text) => splitForTokenizer(text).flatMap((piece) => encoding.encode(piece, NO_SPECIAL)),
    decode: (tokens) => encoding.decode(tokens),
    count(text) {
      if (text.length < CACHE_MIN_LENGTH) return text === '' ? 0 : countPiece(text);
      const cached = cache.get(text);
      if (cached !== undefined) return cached;
      let total = 0;
      for (const piece of splitForTokenizer(text)) total += countPiece(piece);
      if (text.length <= CACHE_MAX_CHARS / 4) cache.set(text, total);
      return total;
    },
  };
  TOKENIZERS.set(name, tokenizer);
  return tokenizer;
}
