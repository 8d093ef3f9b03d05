import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import {
  classifyOverflow,
  HTTP_413_NEAR_WINDOW_PATTERN,
  NO_MATCH_PATTERN,
  overflowScanText,
} from './classify-overflow.js';
import { overflowRegex } from './overflow-regex.js';
import { SUCCESS_STATUS_PATTERN } from './success-answer.js';
import { windowFromOverflow } from './window-from-overflow.js';

// Real messages (see the corpus ids and the catalog sources).
const OPENAI_CONTEXT =
  "This model's maximum context length is 8192 tokens. However, your messages resulted in 8202 tokens. Please reduce the length of the messages.";
const ANTHROPIC_BUDGET =
  'input length and `max_tokens` exceed context limit: 198214 + 8192 > 200000, decrease input length or `max_tokens` and try again';
const LOCALAI_500 =
  'localai stream: status 500: rpc error: code = Internal desc = request (9739 tokens) exceeds the available context size (8192 tokens), try increasing it';

describe('classifyOverflow on SDK errors', () => {
  it('reads an openai v6 APIError: status, error.code and error.message', () => {
    const error = OpenAI.APIError.generate(
      400,
      {
        error: {
          message: OPENAI_CONTEXT,
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
      },
      undefined,
      new Headers(),
    );
    expect(classifyOverflow({ error })).toEqual({
      kind: 'context',
      window: 8192,
      input: 8202,
      pattern: 'openai-messages-resulted',
    });
  });

  it('reads an @anthropic-ai/sdk APIError, also at the end of a cause chain', () => {
    const apiError = Anthropic.APIError.generate(
      400,
      { type: 'error', error: { type: 'invalid_request_error', message: ANTHROPIC_BUDGET } },
      undefined,
      new Headers(),
    );
    const wrapped = new Error('agent step failed', { cause: new Error('send failed', { cause: apiError }) });
    expect(classifyOverflow({ error: wrapped })).toMatchObject({
      kind: 'budget',
      window: 200_000,
      input: 198_214,
      output: 8_192,
    });
  });

  it('reads AI SDK (statusCode, responseBody) and AWS SDK ($metadata) shapes', () => {
    const aiSdk = Object.assign(new Error('Bad Request'), {
      name: 'AI_APICallError',
      statusCode: 400,
      responseBody:
        '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 202609 tokens > 200000 maximum"}}',
    });
    expect(classifyOverflow({ error: aiSdk })).toMatchObject({ kind: 'context', input: 202_609 });
    const aws = {
      name: 'ValidationException',
      message: 'Input is too long for requested model.',
      $metadata: { httpStatusCode: 400 },
    };
    expect(classifyOverflow({ error: aws }).pattern).toBe('bedrock-input-too-long');
  });

  it('never reads the request an SDK error carries as the error', () => {
    const axiosLike = Object.assign(new Error('Request failed with status code 500'), {
      response: { status: 500, data: { error: 'internal error' } },
      config: { data: JSON.stringify({ messages: [{ role: 'user', content: OPENAI_CONTEXT }] }) },
      requestBodyValues: { prompt: OPENAI_CONTEXT },
    });
    expect(classifyOverflow({ error: axiosLike })).toEqual({ kind: 'none', pattern: NO_MATCH_PATTERN });
  });

  it('takes the status from the error when none is given', () => {
    const error = Object.assign(new Error('Current length is 14859 while limit is 8192'), { status: 429 });
    expect(classifyOverflow({ error }).kind).toBe('context');
    const generic = Object.assign(new Error('Context length exceeded'), { status: 500 });
    expect(classifyOverflow({ error: generic }).kind).toBe('none');
  });
});

describe('classifyOverflow on bodies', () => {
  it('reads a parsed JSON body, including fields outside the message', () => {
    const body = {
      error: {
        code: 500,
        message:
          'the request exceeds the available context size. try increasing the context size or enable context shift',
        type: 'exceed_context_size_error',
        n_prompt_tokens: 1407,
        n_ctx: 256,
      },
    };
    expect(classifyOverflow({ status: 500, body })).toEqual({
      kind: 'context',
      window: 256,
      input: 1407,
      pattern: 'llamacpp-exceed-context-size-error',
    });
  });

  it('reads bytes, Python reprs and JSON escapes alike', () => {
    const bytes = new TextEncoder().encode(`{"error":{"message":${JSON.stringify(OPENAI_CONTEXT)}}}`);
    expect(classifyOverflow({ body: bytes }).input).toBe(8202);
    const repr = `Error code: 400 - {'error': {'message': "This model\\u0027s maximum context length is 8192 tokens. However, your messages resulted in 8202 tokens."}}`;
    expect(classifyOverflow({ body: repr }).window).toBe(8192);
  });

  it('reads figures printed with thousands separators', () => {
    const body =
      'Context length exceeded: input (120,500) + max_tokens (8,192) = 128,692 > context_limit (128,000)';
    expect(classifyOverflow({ body })).toMatchObject({
      kind: 'budget',
      input: 120_500,
      window: 128_000,
      total: 128_692,
    });
  });

  it('joins words a terminal hard-wrapped when the plain text yields no figures', () => {
    const body =
      "This model's maximum context lengt\nh is 4096 tokens. However, you requested 4726 tokens (3726 in the messages, 1000 in the completion).";
    expect(classifyOverflow({ status: 400, body })).toMatchObject({
      kind: 'budget',
      window: 4096,
      input: 3726,
    });
  });

  it('reads OpenRouter errors in a 200 stream and ignores content deltas about context windows', () => {
    // OpenRouter's documented mid-stream error chunk, carrying corpus openrouter-ctx-02's message.
    const failing = [
      'data: {"id":"cmpl-abc123","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hel"}}]}',
      '',
      `data: {"id":"cmpl-abc123","object":"chat.completion.chunk","error":{"code":400,"message":"This endpoint's maximum context length is 204800 tokens. However, you requested about 244027 tokens."},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}`,
      '',
    ].join('\n');
    expect(classifyOverflow({ status: 200, body: failing })).toMatchObject({
      kind: 'context',
      window: 204_800,
    });
    const chatty = [
      `data: {"choices":[{"index":0,"delta":{"content":${JSON.stringify(OPENAI_CONTEXT)}}}]}`,
      '',
      'data: [DONE]',
      '',
    ].join('\n');
    expect(classifyOverflow({ status: 200, body: chatty })).toEqual({
      kind: 'none',
      pattern: SUCCESS_STATUS_PATTERN,
    });
  });
});

describe('classifyOverflow and the HTTP status', () => {
  it('lets generic wording classify only at an unknown status or 400, 413, 422', () => {
    const body = 'Error: Message exceeds token limit.';
    expect(classifyOverflow({ body }).kind).toBe('context');
    expect(classifyOverflow({ status: 400, body }).kind).toBe('context');
    expect(classifyOverflow({ status: 422, body }).kind).toBe('context');
    expect(classifyOverflow({ status: 500, body })).toEqual({ kind: 'none', pattern: NO_MATCH_PATTERN });
    expect(classifyOverflow({ status: 429, body }).kind).toBe('none');
  });

  it("reads stated figures at 403 (Zed's model proxy), and keeps 401, 404 and 429 at none", () => {
    const body =
      'completion request failed, code: http_403 Forbidden, message: Context window exceeded: 306234 tokens exceeds the limit of 272000 tokens';
    expect(classifyOverflow({ status: 403, body })).toMatchObject({
      kind: 'context',
      input: 306_234,
      window: 272_000,
    });
    for (const status of [401, 404, 429]) expect(classifyOverflow({ status, body }).kind).toBe('none');
    expect(classifyOverflow({ status: 403, body: 'Error: Message exceeds token limit.' }).kind).toBe('none');
  });

  it('classifies provider wording at any status (LocalAI 500, LiteLLM 503)', () => {
    expect(classifyOverflow({ status: 500, body: LOCALAI_500 })).toMatchObject({
      kind: 'context',
      input: 9739,
    });
    expect(
      classifyOverflow({ status: 503, body: `litellm.ServiceUnavailableError: ${OPENAI_CONTEXT}` }).kind,
    ).toBe('context');
  });

  it('defers a 200 to the status stated inside the body', () => {
    const body = 'data: {"error":{"code":400,"message":"Context length exceeded"}}\n\n';
    expect(classifyOverflow({ status: 200, body }).kind).toBe('context');
    const stated500 = 'data: {"error":{"code":500,"message":"Context length exceeded"}}\n\n';
    expect(classifyOverflow({ status: 200, body: stated500 }).kind).toBe('none');
  });

  it('reads an error event inside a 200 stream as an error of unknown status', () => {
    const body = 'data: {"error":{"message":"Context length exceeded"}}\n\n';
    expect(classifyOverflow({ status: 200, body })).toMatchObject({ kind: 'context' });
    const content = 'data: {"choices":[{"delta":{"content":"a prompt is too long for the context"}}]}\n\n';
    expect(classifyOverflow({ status: 200, body: content })).toEqual({
      kind: 'none',
      pattern: SUCCESS_STATUS_PATTERN,
    });
  });

  it('treats a bare 413 as an overflow only when the last estimate was at least 80% of the window', () => {
    const body = '413 status code (no body)';
    expect(classifyOverflow({ status: 413, body, lastEstimate: 6_600, window: 8_192 })).toEqual({
      kind: 'context',
      pattern: HTTP_413_NEAR_WINDOW_PATTERN,
    });
    expect(classifyOverflow({ status: 413, body, lastEstimate: 6_500, window: 8_192 })).toEqual({
      kind: 'none',
      pattern: NO_MATCH_PATTERN,
      unclassified: true,
    });
    expect(classifyOverflow({ status: 413, body }).unclassified).toBe(true);
  });

  it('keeps byte-size limits none even at 413 near the window', () => {
    const body =
      'API Error: 413 {"error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}';
    expect(classifyOverflow({ status: 413, body, lastEstimate: 8_000, window: 8_192 })).toEqual({
      kind: 'none',
      pattern: 'byte-size-limit',
    });
  });

  it('flags unrecognized 400/413/422 rejections, not recognized near-misses or other statuses', () => {
    const unknown = '{"error":{"message":"something the catalog has never seen"}}';
    expect(classifyOverflow({ status: 400, body: unknown })).toEqual({
      kind: 'none',
      pattern: NO_MATCH_PATTERN,
      unclassified: true,
    });
    expect(classifyOverflow({ status: 500, body: unknown }).unclassified).toBeUndefined();
    expect(
      classifyOverflow({ status: 400, body: 'Your credit balance is too low to access the Anthropic API.' }),
    ).toEqual({ kind: 'none', pattern: 'quota-or-billing' });
  });
});

describe('classifyOverflow with user patterns', () => {
  const acme = {
    name: 'acme-window',
    kind: 'context' as const,
    pattern: overflowRegex(String.raw`acme: prompt (?<input>{N})(?: \+ (?<output>{N}))? over (?<window>{N})`),
  };

  it('tries user rows first, and derives budget vs context when prompt, output and window are stated', () => {
    expect(classifyOverflow({ status: 400, body: 'ACME: prompt 9000 over 8192', patterns: [acme] })).toEqual({
      kind: 'context',
      window: 8192,
      input: 9000,
      pattern: 'acme-window',
    });
    expect(classifyOverflow({ body: 'acme: prompt 100 + 9000 over 8192', patterns: [acme] }).kind).toBe(
      'budget',
    );
    expect(classifyOverflow({ body: 'acme: prompt 9000 + 10 over 8192', patterns: [acme] }).kind).toBe(
      'context',
    );
    expect(classifyOverflow({ body: 'acme: prompt 100 over 8192', patterns: [acme] }).kind).toBe('context');
  });

  it('lets a user none row silence a catalog match', () => {
    const quiet = { name: 'ignore-my-proxy', kind: 'none' as const, pattern: /my proxy says/i };
    expect(classifyOverflow({ body: `my proxy says: ${OPENAI_CONTEXT}`, patterns: [quiet] })).toEqual({
      kind: 'none',
      pattern: 'ignore-my-proxy',
    });
  });
});

describe('windowFromOverflow', () => {
  it('returns the window of context and budget overflows only', () => {
    expect(windowFromOverflow(classifyOverflow({ body: OPENAI_CONTEXT }))).toBe(8192);
    expect(windowFromOverflow(classifyOverflow({ body: ANTHROPIC_BUDGET }))).toBe(200_000);
    const vllmCap =
      'max_completion_tokens is too large: 250000.This model supports at most 210000 completion tokens.';
    expect(classifyOverflow({ body: vllmCap })).toMatchObject({ kind: 'output_cap', window: 210_000 });
    expect(windowFromOverflow(classifyOverflow({ body: vllmCap }))).toBeUndefined();
    expect(windowFromOverflow({ kind: 'context', pattern: HTTP_413_NEAR_WINDOW_PATTERN })).toBeUndefined();
  });

  it('never returns a character count', () => {
    const body =
      "Invalid 'input[0].content': string too long. Expected a string with maximum length 10485760, but got a string with length 62114761 instead.";
    const info = classifyOverflow({ body });
    expect(info).toMatchObject({ kind: 'context', window: 10_485_760, units: 'characters' });
    expect(windowFromOverflow(info)).toBeUndefined();
  });
});

describe('overflowScanText', () => {
  it('shows the normalized text patterns run against', () => {
    expect(overflowScanText({ body: 'a\\n  b\t\t"c\\"d"\u2019' })).toBe(`a b "c"d"'`);
  });
});
