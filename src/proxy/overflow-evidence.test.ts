import { describe, expect, it } from 'vitest';
import { classifyOverflow } from '../core/index.js';
import { matchOverflow, type SentAttempt } from './overflow-evidence.js';

/** vLLM's validation error, as it words an over-long request (vllm/entrypoints/openai/serving_engine.py). */
const vllm = (window: number, input: number, output: number) =>
  classifyOverflow({
    status: 400,
    body: JSON.stringify({
      object: 'error',
      message: `This model's maximum context length is ${window} tokens. However, you requested ${input + output} tokens (${input} in the messages, ${output} in the completion). Please reduce the length of the messages or completion.`,
      type: 'BadRequestError',
      code: 400,
    }),
  });

const sent: SentAttempt = { promptTokens: 9_000, countSource: 'anchored', maxTokens: 1_000, window: 32_768 };

describe('matchOverflow', () => {
  it('learns a window whose figures agree with the request sent', () => {
    expect(matchOverflow({ overflow: vllm(8_192, 9_100, 1_000), sent })).toEqual({
      kind: 'matched',
      contextLength: 8_192,
    });
  });

  it('refuses a window larger than the request it rejected', () => {
    const match = matchOverflow({ overflow: vllm(10_000_000, 9_100, 1_000), sent });
    expect(match.kind).toBe('unmatched');
  });

  it('refuses figures that are not those of the request sent', () => {
    // Another max_tokens, another prompt size: the words are somebody's text, not this request's.
    expect(matchOverflow({ overflow: vllm(2_000, 9_100, 64), sent }).kind).toBe('unmatched');
    expect(matchOverflow({ overflow: vllm(2_000, 400_000, 1_000), sent }).kind).toBe('unmatched');
    expect(matchOverflow({ overflow: vllm(2_000, 1_500, 1_000), sent }).kind).toBe('unmatched');
  });

  it('allows an estimate more room than a trusted count', () => {
    const estimated: SentAttempt = { ...sent, countSource: 'estimate', promptTokens: 6_000 };
    expect(matchOverflow({ overflow: vllm(8_192, 10_000, 1_000), sent: estimated }).kind).toBe('matched');
    expect(
      matchOverflow({ overflow: vllm(8_192, 10_000, 1_000), sent: { ...estimated, countSource: 'exact' } })
        .kind,
    ).toBe('unmatched');
  });

  it('takes vLLM’s lower bound on the prompt for what it is', () => {
    // vLLM from 0.20 states W - B + 1 when it truncated its count there.
    const overflow = {
      kind: 'context' as const,
      window: 8_192,
      input: 7_193,
      output: 1_000,
      pattern: 'vllm',
    };
    expect(matchOverflow({ overflow, sent: { ...sent, promptTokens: 20_000 } })).toEqual({
      kind: 'matched',
      contextLength: 8_192,
    });
  });

  it('learns an output cap only when the request asked for more', () => {
    const overflow = { kind: 'output_cap' as const, output: 1_000, outputLimit: 512, pattern: 'x' };
    expect(matchOverflow({ overflow, sent })).toEqual({ kind: 'matched', outputCap: 512 });
    expect(matchOverflow({ overflow: { ...overflow, outputLimit: 4_096 }, sent }).kind).toBe('unmatched');
    const { maxTokens: _none, ...unbounded } = sent;
    expect(matchOverflow({ overflow, sent: unbounded }).kind).toBe('unmatched');
    expect(matchOverflow({ overflow: { ...overflow, outputLimit: 3 }, sent }).kind).toBe('unmatched');
  });

  it('says nothing of an overflow without a window figure', () => {
    expect(matchOverflow({ overflow: { kind: 'context', pattern: 'generic' }, sent })).toEqual({
      kind: 'none',
    });
  });
});
