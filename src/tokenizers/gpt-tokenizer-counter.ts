import { requireOptional } from '../optional/index.js';
import { createExactCounter, type ExactTokenCounter } from './exact-counter.js';

/** The encodings the OpenAI counter offers. */
export type GptEncoding = 'o200k_base' | 'cl100k_base';

/** Special-token look-alikes in content are ordinary text: a chat API never reads them as control tokens. */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * An exact counter for OpenAI models, built on gpt-tokenizer (an optional dependency): `o200k_base` for GPT-4o,
 * 4.1, 5, the o-series and gpt-oss, `cl100k_base` for GPT-4 and 3.5. Text is counted in pieces of at
 * most 2 KB cut at whitespace, long texts are cached. Loading it costs about 0.3 s; `exactCounterFor`
 * loads it only when a model asks for it.
 *
 * @example
 * import { createGptTokenizerCounter } from 'spillway/tokenizers';
 * createGptTokenizerCounter('o200k_base').count('Hello, world'); // 3
 */
export function createGptTokenizerCounter(
  encoding: GptEncoding = 'o200k_base',
  { exact = true }: { exact?: boolean } = {},
): ExactTokenCounter {
  // The CommonJS build, loaded synchronously on first use: this function returns a counter at once.
  const { countTokens: count } = requireOptional<typeof import('gpt-tokenizer/encoding/o200k_base')>({
    specifier: `gpt-tokenizer/cjs/encoding/${encoding}`,
    feature: 'exact counting for OpenAI models',
  });
  return createExactCounter({
    family: encoding === 'o200k_base' ? 'o200k' : 'cl100k',
    package: 'gpt-tokenizer',
    exact,
    countPiece: (piece) => count(piece, AS_TEXT),
  });
}
