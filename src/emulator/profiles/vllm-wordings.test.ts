import { describe, expect, it } from 'vitest';
import { vllmCheck, vllmErrorBody } from './vllm-wordings.js';

const window = 8_192;

describe('vllmCheck', () => {
  it('v0 reports the combined count and defaults max_tokens to the room left', () => {
    expect(vllmCheck({ wording: 'v0', window, promptTokens: 5_000, maxTokens: 4_096 })).toEqual({
      ok: false,
      kind: 'budget',
      param: null,
      message:
        "This model's maximum context length is 8192 tokens. However, you requested 9096 tokens (5000 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.",
    });
    expect(vllmCheck({ wording: 'v0', window, promptTokens: 5_000, maxTokens: undefined })).toEqual({
      ok: true,
      outputLimit: 3_192,
    });
    expect(vllmCheck({ wording: 'v0', window, promptTokens: 9_000, maxTokens: undefined })).toMatchObject({
      kind: 'context',
    });
  });

  it('v1 tells the prompt alone from prompt plus output', () => {
    expect(vllmCheck({ wording: 'v1', window, promptTokens: 9_739, maxTokens: 512 })).toMatchObject({
      kind: 'context',
      message:
        "This model's maximum context length is 8192 tokens. However, your request has 9739 input tokens. Please reduce the length of the input messages. (parameter=input_tokens, value=9739)",
    });
    expect(vllmCheck({ wording: 'v1', window, promptTokens: 5_000, maxTokens: 4_096 })).toMatchObject({
      kind: 'budget',
      message:
        "This model's maximum context length is 8192 tokens. However, you requested 4096 output tokens and your prompt contains 5000 input tokens, for a total of 9096 tokens. Please reduce the length of the input prompt or the number of requested output tokens. (parameter=input_tokens, value=5000)",
    });
  });

  it('v2 and v3 report the truncated lower bound of the prompt, not its size', () => {
    const v3 = vllmCheck({ wording: 'v3', window: 131_072, promptTokens: 300_000, maxTokens: 32_768 });
    expect(v3).toMatchObject({
      kind: 'budget',
      message:
        "You passed 98305 input tokens and requested 32768 output tokens. However, the model's context length is only 131072 tokens, resulting in a maximum input length of 98304 tokens. Please reduce the length of the input prompt. (parameter=input_tokens, value=98305)",
    });
    const v2 = vllmCheck({ wording: 'v2', window: 32_768, promptTokens: 40_000, maxTokens: undefined });
    expect(v2).toMatchObject({
      kind: 'context',
      message:
        "This model's maximum context length is 32768 tokens. However, you requested 0 output tokens and your prompt contains at least 32769 input tokens, for a total of at least 32769 tokens. Please reduce the length of the input prompt or the number of requested output tokens. (parameter=input_tokens, value=32769)",
    });
    expect(vllmCheck({ wording: 'v3', window, promptTokens: 10, maxTokens: 9_000 })).toMatchObject({
      kind: 'output_cap',
    });
  });

  it('sglang uses >= on the window, as its tokenizer manager does', () => {
    expect(
      vllmCheck({ wording: 'sglang', window: 210_000, promptTokens: 133, maxTokens: 209_990 }),
    ).toMatchObject({
      kind: 'budget',
      message:
        "Requested token count exceeds the model's maximum context length of 210000 tokens. You requested a total of 210123 tokens: 133 tokens from the input messages and 209990 tokens for the completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit.",
    });
    expect(vllmCheck({ wording: 'sglang', window, promptTokens: 8_192, maxTokens: undefined })).toMatchObject(
      { kind: 'context' },
    );
  });
});

describe('vllmErrorBody', () => {
  it('is flat before 0.10 and nested after', () => {
    expect(vllmErrorBody('v0', 'm', null)).toEqual({
      object: 'error',
      message: 'm',
      type: 'BadRequestError',
      param: null,
      code: 400,
    });
    expect(vllmErrorBody('v3', 'm', 'input_tokens')).toEqual({
      error: { message: 'm', type: 'BadRequestError', param: 'input_tokens', code: 400 },
    });
  });
});
