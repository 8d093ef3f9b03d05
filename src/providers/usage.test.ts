import { describe, expect, it } from 'vitest';
import { usageOf as anthropicUsage } from './anthropic-client.js';
import { usageOf as openAIUsage } from './openai-compatible-client.js';

describe('usage as providers report it', () => {
  it('keeps OpenAI’s cached prompt tokens apart, inside the prompt count', () => {
    expect(
      openAIUsage({
        prompt_tokens: 2_006,
        completion_tokens: 300,
        prompt_tokens_details: { cached_tokens: 1_920, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 128 },
      }),
    ).toEqual({ promptTokens: 2_006, completionTokens: 300, reasoningTokens: 128, cachedTokens: 1_920 });
  });

  it('leaves cachedTokens out when the server does not say (vLLM sends prompt_tokens_details: null)', () => {
    expect(openAIUsage({ prompt_tokens: 10, completion_tokens: 2, prompt_tokens_details: null })).toEqual({
      promptTokens: 10,
      completionTokens: 2,
    });
  });

  it('counts Anthropic’s cache reads and writes into the prompt and states the reads as cached', () => {
    expect(
      anthropicUsage({
        input_tokens: 50,
        cache_creation_input_tokens: 200,
        cache_read_input_tokens: 1_800,
        output_tokens: 90,
      }),
    ).toEqual({ promptTokens: 2_050, completionTokens: 90, cachedTokens: 1_800 });
  });
});
