import { countTokens as countCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import type { TokenCounter } from '../core/index.js';
import { chunkText } from './chunk-text.js';

/** The encodings the exact counter offers. */
export type GptEncoding = 'o200k_base' | 'cl100k_base';

/**
 * An exact {@link TokenCounter} for OpenAI models, built on gpt-tokenizer. Text is counted in
 * pieces of at most 2 KB cut at whitespace, which keeps one long unbroken run from stalling the
 * tokenizer. About 20× slower than Spillway's estimator (see `npm run bench`): use it where the exact
 * count matters more than the time.
 *
 * @example
 * import { createGptTokenizerCounter } from 'spillway/gpt-tokenizer';
 * const manager = new ContextWindowManager({ contextLength: 128_000, counter: createGptTokenizerCounter('o200k_base') });
 */
export function createGptTokenizerCounter(encoding: GptEncoding = 'o200k_base'): TokenCounter {
  const count = encoding === 'o200k_base' ? countO200k : countCl100k;
  return {
    name: `gpt-tokenizer/${encoding}`,
    count(text: string): number {
      if (text === '') return 0;
      let total = 0;
      for (const piece of chunkText(text)) total += count(piece);
      return total;
    },
  };
}
