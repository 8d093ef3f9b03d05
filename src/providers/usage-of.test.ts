import { describe, expect, it } from 'vitest';
import { usageOf as anthropicUsageOf } from './anthropic-client.js';
import { usageOf as openAIUsageOf } from './openai-compatible-client.js';

describe('usage with prompt-cache figures', () => {
  it('reads OpenAI cache hits from prompt_tokens_details.cached_tokens, part of prompt_tokens', () => {
    // The usage block of OpenAI's Chat Completions reference, with a cache hit.
    expect(
      openAIUsageOf({
        prompt_tokens: 2_524,
        completion_tokens: 120,
        total_tokens: 2_644,
        prompt_tokens_details: { cached_tokens: 2_432, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
      }),
    ).toEqual({ promptTokens: 2_524, completionTokens: 120, reasoningTokens: 0, cachedTokens: 2_432 });
    expect(openAIUsageOf({ prompt_tokens: 10, completion_tokens: 2 })).toEqual({
      promptTokens: 10,
      completionTokens: 2,
    });
  });

  it('adds Anthropic cache reads and writes to the prompt, and keeps each figure', () => {
    // Anthropic Messages: input_tokens counts only what is neither read from nor written to the cache.
    expect(
      anthropicUsageOf({
        input_tokens: 21,
        cache_creation_input_tokens: 188,
        cache_read_input_tokens: 1_800,
        output_tokens: 393,
      }),
    ).toEqual({
      promptTokens: 2_009,
      completionTokens: 393,
      cachedTokens: 1_800,
      cacheWriteTokens: 188,
    });
  });
});
