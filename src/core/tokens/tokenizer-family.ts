/**
 * @module
 * Which tokenizer a model uses, from its id. The estimator has weights per family; a model it cannot
 * place gets the `conservative` family, which takes the largest estimate of the modern byte-level
 * BPE families (o200k, cl100k, Llama 3, the Claude vocabulary).
 */
import { LruCache } from './lru-cache.js';
import type { FAMILY_WEIGHTS } from './weights.js';

/** The tokenizer families the estimator has weights for, and `conservative`. */
export type TokenizerFamily = keyof typeof FAMILY_WEIGHTS | 'conservative';

/** Model ids by family, first match wins. */
const FAMILY_PATTERNS: ReadonlyArray<[TokenizerFamily, RegExp]> = [
  ['o200k', /(^|[/:])(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o1|o3|o4|chatgpt-4o|codex)/i],
  ['cl100k', /(^|[/:])(gpt-4(?![o.])|gpt-3\.5|text-embedding-3|text-embedding-ada)/i],
  ['claude_legacy', /claude/i],
  ['llama3', /llama-?3|llama-?4/i],
  // SentencePiece models with 32k vocabularies make the most tokens of the same text.
  ['llama2', /llama-?2|codellama|vicuna|alpaca/i],
  ['mistral', /mistral-7b|mixtral|zephyr/i],
];

/**
 * The families `conservative` takes the largest estimate of: the modern byte-level BPE vocabularies
 * (100k+ tokens) most served models use. Qwen's splits every digit, where the others group digits in
 * threes: without it, digit-heavy text (ids, hashes, numbered logs) of an unplaced model was counted
 * at as little as 0.75 of what Qwen counts (8% of the held-out mixed samples under). The 32k
 * SentencePiece families (Llama 2, Mistral v0.1) make 1.27–1.30× as many tokens; their models are
 * placed by id, and an unplaced one is corrected by the first response's usage (calibration only
 * grows).
 */
export const CONSERVATIVE_FAMILIES: readonly TokenizerFamily[] = [
  'o200k',
  'cl100k',
  'claude_legacy',
  'llama3',
  'qwen2',
];

/**
 * Model ids placed before: a proxy places the same few ids several times a request, and a miss
 * tests up to six patterns. The 1,024 used last are kept.
 */
const PLACED = new LruCache<string, TokenizerFamily>({ maxEntries: 1_024 });

/**
 * The tokenizer family of a model id, `conservative` when unknown (Qwen, DeepSeek, GLM, Gemma and
 * other modern models, whose tokenizers are close to o200k, cl100k and Qwen's). Qwen models stay
 * `conservative` although the estimator has Qwen's weights: an id names a model, not what the
 * server counts with (a server may serve `qwen` and count with o200k). Claude models get the Claude
 * vocabulary's weights; a provider that counts more is corrected by calibration.
 *
 * @example
 * tokenizerFamilyOf('gpt-4o-mini'); // 'o200k'
 * tokenizerFamilyOf('openai/gpt-4-turbo'); // 'cl100k'
 * tokenizerFamilyOf('claude-sonnet-4-5'); // 'claude_legacy'
 * tokenizerFamilyOf('Qwen/Qwen2.5-7B-Instruct'); // 'conservative'
 */
export function tokenizerFamilyOf(model: string | undefined): TokenizerFamily {
  if (model === undefined) return 'conservative';
  let family = PLACED.get(model);
  if (family === undefined) {
    family = FAMILY_PATTERNS.find(([, pattern]) => pattern.test(model))?.[0] ?? 'conservative';
    PLACED.set(model, family);
  }
  return family;
}
