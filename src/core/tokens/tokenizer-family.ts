/**
 * @module
 * Which tokenizer a model uses, from its id. The estimator has weights per family; a model it cannot
 * place gets the `conservative` family, which takes the largest estimate of every fitted family.
 */
import type { FAMILY_WEIGHTS } from './weights.js';

/** The tokenizer families the estimator has weights for, and `conservative`. */
export type TokenizerFamily = keyof typeof FAMILY_WEIGHTS | 'conservative';

/** Model ids by family, first match wins. Families without a pattern are used only when named. */
const FAMILY_PATTERNS: ReadonlyArray<[TokenizerFamily, RegExp]> = [
  ['o200k', /(^|[/:])(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o1|o3|o4|chatgpt-4o|codex)/i],
  ['cl100k', /(^|[/:])(gpt-4(?![o.])|gpt-3\.5|text-embedding-3|text-embedding-ada)/i],
];

/**
 * The tokenizer family of a model id, `conservative` when unknown. Claude, Llama, Mistral, Qwen and
 * every other model are `conservative`: their own tokenizers are not all available, and the largest
 * estimate over the fitted families (Llama 2 and Mistral v0.1 make the most tokens) is safe for them.
 *
 * @example
 * tokenizerFamilyOf('gpt-4o-mini'); // 'o200k'
 * tokenizerFamilyOf('openai/gpt-4-turbo'); // 'cl100k'
 * tokenizerFamilyOf('claude-sonnet-4-5'); // 'conservative'
 */
export function tokenizerFamilyOf(model: string | undefined): TokenizerFamily {
  if (model === undefined) return 'conservative';
  for (const [family, pattern] of FAMILY_PATTERNS) if (pattern.test(model)) return family;
  return 'conservative';
}
