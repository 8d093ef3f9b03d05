/**
 * @module
 * Which tokenizer a model uses, from its id. The estimator has weights per family; a model it cannot
 * place gets the `conservative` family, the larger of every fitted family's weights.
 */

/** The tokenizer families the estimator has weights for. */
export type TokenizerFamily = 'o200k' | 'cl100k' | 'conservative';

const O200K = /(^|[/:])(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o1|o3|o4|chatgpt-4o|codex)/i;
const CL100K = /(^|[/:])(gpt-4(?![o.])|gpt-3\.5|text-embedding-3|text-embedding-ada)/i;

/**
 * The tokenizer family of a model id, `conservative` when unknown.
 *
 * @example
 * tokenizerFamilyOf('gpt-4o-mini'); // 'o200k'
 * tokenizerFamilyOf('openai/gpt-4-turbo'); // 'cl100k'
 * tokenizerFamilyOf('claude-sonnet-4-5'); // 'conservative'
 */
export function tokenizerFamilyOf(model: string | undefined): TokenizerFamily {
  if (model === undefined) return 'conservative';
  if (O200K.test(model)) return 'o200k';
  if (CL100K.test(model)) return 'cl100k';
  return 'conservative';
}
