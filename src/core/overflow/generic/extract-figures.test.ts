import { describe, expect, it } from 'vitest';
import { extractFigures } from './extract-figures.js';
import { figureCandidates, MAX_FIGURE_CANDIDATES, unglueFigures } from './figure-candidates.js';

const figures = (text: string) => extractFigures(text).figures;

describe('figure candidates', () => {
  it('reads free-standing numbers and skips the digits of ids, versions, dates and paths', () => {
    const text =
      'gpt-4o claude-3-5-sonnet@20240620 v4.104.0 req_011CSP /issues/37289 2025-03-24 got 8,192 tokens';
    expect(figureCandidates(text).map((candidate) => candidate.value)).toEqual([8192]);
    expect(figureCandidates('got -7584.')[0]).toMatchObject({ value: 7584, negative: true });
  });

  it('skips the digits of a time of day and a time zone', () => {
    expect(
      figureCandidates('2026-08-08T18:17:48+02:00 ERROR 10:21:05 request (8250 tokens)').map(
        (candidate) => candidate.value,
      ),
    ).toEqual([8250]);
  });

  it('puts back the spaces a client dropped around a figure', () => {
    expect(unglueFigures('The prompt is2614tokens and the context window is2048!')).toBe(
      'The prompt is 2614 tokens and the context window is 2048!',
    );
    expect(unglueFigures('org_01hsjxygceejnvjd05 gpt4o')).toBe('org_01hsjxygceejnvjd05 gpt4o');
  });

  it('reads at most a fixed number of figures', () => {
    expect(figureCandidates('1 , '.repeat(10_000))).toHaveLength(MAX_FIGURE_CANDIDATES);
  });
});

describe('extractFigures', () => {
  it('reads the subject of "exceeds" as the measured amount, before a window cue', () => {
    // held-out zed-cloud-403-context-01, librechat-abort-ctx-01
    expect(figures('Context window exceeded: 306234 tokens exceeds the limit of 272000 tokens')).toEqual({
      input: 306_234,
      window: 272_000,
    });
    expect(figures('Prompt token count of 4662 exceeds max token count of 4095.')).toEqual({
      input: 4662,
      window: 4095,
    });
    expect(figures('{ "error": "input length exceeds maximum context length", "status_code": 400 }')).toEqual(
      {},
    );
  });

  it('reads the prompt, the window and the output from the words around them', () => {
    expect(figures('Prompt length (5056) exceeds maximum sequence length (2048)')).toEqual({
      input: 5056,
      window: 2048,
    });
    expect(figures('Input length 131393 exceeds the maximum allowed input length of 131040 tokens.')).toEqual(
      {
        input: 131_393,
        window: 131_040,
      },
    );
    expect(
      figures(
        "This model's maximum context length is 8192 tokens. However, you requested 4096 output tokens and your prompt contains 5000 input tokens, for a total of 9096 tokens.",
      ),
    ).toEqual({ window: 8192, output: 4096, input: 5000, total: 9096 });
  });

  it('reads breakdowns: parts of the prompt add up, the requested figure is the total', () => {
    expect(
      figures(
        'maximum context length is 8192 tokens. However, you requested 9455 tokens (2426 in the messages, 2933 in the functions, and 4096 in the completion).',
      ),
    ).toEqual({ window: 8192, total: 9455, input: 5359, output: 4096 });
    expect(figures('you requested about 201326 tokens (197771 of text input, 3555 of tool input)')).toEqual({
      total: 201_326,
      input: 201_326,
    });
  });

  it('follows operators: A + B > C, A >= C, A of C, (A / C), [1, C], = T', () => {
    expect(figures('input length and `max_tokens` exceed context limit: 198214 + 8192 > 200000')).toEqual({
      input: 198_214,
      output: 8192,
      window: 200_000,
    });
    expect(
      figures('max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens'),
    ).toEqual({
      output: 100_000,
      outputLimit: 64_000,
    });
    expect(figures('Cannot truncate prompt with n_keep (15028) >= n_ctx (7424)')).toEqual({
      input: 15_028,
      window: 7424,
    });
    expect(figures('Input tokens: ~7,123 of 200,000 Output tokens: ~3,017 of 4,096')).toEqual({
      input: 7123,
      window: 200_000,
      output: 3017,
      outputLimit: 4096,
    });
    expect(figures('Prompt token count exceeds max token count (5910 / 4095).')).toEqual({
      input: 5910,
      window: 4095,
    });
    expect(figures('the valid range of max_tokens is [1, 8192]')).toEqual({ outputLimit: 8192 });
    expect(figures('input (120,500) + max_tokens (8,192) = 128,692 > context_limit (128,000)')).toEqual({
      input: 120_500,
      output: 8192,
      total: 128_692,
      window: 128_000,
    });
  });

  it('reads an exclusive bound as one less, and the subject decides what a bound bounds', () => {
    expect(
      figures(
        'maxOutputTokens value of 655360 but the supported range is from 1 (inclusive) to 8193 (exclusive)',
      ),
    ).toEqual({ output: 655_360, outputLimit: 8192 });
    expect(figures('The maximum tokens you requested exceeds the model limit of 2048.')).toEqual({
      outputLimit: 2048,
    });
    expect(
      figures(
        '`inputs` tokens + `max_new_tokens` must be <= 1512. Given: 1000 `inputs` tokens and 1024 `max_new_tokens`',
      ),
    ).toEqual({
      window: 1512,
      input: 1000,
      output: 1024,
    });
  });

  it('counts a figure equal to prompt + output as the total', () => {
    expect(
      figures(
        'The provided prompt is 4309 tokens long, so generating 1 tokens requires a sequence length of 4310, but the maximum supported sequence length is just 4096!',
      ),
    ).toEqual({ input: 4309, output: 1, total: 4310, window: 4096 });
  });

  it('leaves out statuses, characters and draft tokens, and flags a negative output and character limits', () => {
    expect(
      figures('Request Failed: 400 {"message":"prompt token count of 514673 exceeds the limit of 128000"}'),
    ).toEqual({
      input: 514_673,
      window: 128_000,
    });
    expect(
      figures(
        'Prompt contains 40960 tokens and 0 draft tokens, too large for model with 32768 maximum context length',
      ),
    ).toEqual({
      input: 40_960,
      window: 32_768,
    });
    expect(extractFigures('max_tokens must be at least 1, got -7584.').negativeOutput).toBe(true);
    expect(
      extractFigures('Malformed input request: expected maxLength: 2048, actual: 19882').characters,
    ).toBe(true);
    expect(extractFigures('maximum context length is 131072 tokens').characters).toBe(false);
  });
});
