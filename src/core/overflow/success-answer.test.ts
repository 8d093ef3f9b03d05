import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyOverflow } from './classify-overflow.js';
import { isSuccessfulAnswer, SUCCESS_STATUS_PATTERN } from './success-answer.js';

// Overflow messages that classify as overflows at 400 (corpus rows named in the comments).
const OVERFLOWS = [
  // openai-ctx-*
  "This model's maximum context length is 8192 tokens. However, your messages resulted in 8202 tokens. Please reduce the length of the messages.",
  // anthropic-prompt-too-long
  'prompt is too long: 208310 tokens > 200000 maximum',
  // vllm-scheduler-warning-02 (a warning vLLM logs while it answers 200)
  'WARNING 02-13 07:19:11 scheduler.py:949] Input prompt (32889 tokens) is too long and exceeds limit of 2048',
  // llamacpp request over n_ctx
  'request (9739 tokens) exceeds the available context size (8192 tokens), try increasing it',
];

describe('a 2xx answer is never an overflow', () => {
  it.each(OVERFLOWS)('is an overflow at 400 and none at 200: %s', (message) => {
    expect(classifyOverflow({ status: 400, body: message }).kind).not.toBe('none');
    expect(classifyOverflow({ status: 200, body: message })).toEqual({
      kind: 'none',
      pattern: SUCCESS_STATUS_PATTERN,
    });
  });

  it('reads no warning beside a served reply, whatever the field says', () => {
    const body = JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'length' }],
      warning: OVERFLOWS[0],
    });
    for (const status of [200, 201, 206, 299])
      expect(classifyOverflow({ status, body })).toMatchObject({
        kind: 'none',
        pattern: SUCCESS_STATUS_PATTERN,
      });
  });

  it('keeps a stop reason that names the window at none (the reply is handled as cut off)', () => {
    const body =
      '{"type":"message","role":"assistant","stop_reason":"model_context_window_exceeded","content":[]}';
    expect(classifyOverflow({ status: 200, body }).kind).toBe('none');
  });

  it('takes the status from an error object when the caller passes none', () => {
    const error = Object.assign(new Error(OVERFLOWS[1]), { status: 200 });
    expect(classifyOverflow({ error }).pattern).toBe(SUCCESS_STATUS_PATTERN);
    const rejected = Object.assign(new Error(OVERFLOWS[1]), { status: 400 });
    expect(classifyOverflow({ error: rejected }).kind).toBe('context');
  });

  it('holds for any text without an error envelope (property)', () => {
    const words = fc.constantFrom(
      ...OVERFLOWS,
      'context length exceeded',
      'maximum context length is 4096 tokens',
      'Input prompt (9000 tokens) is too long',
      'WARN',
      'truncating input prompt limit=2048 prompt=5065',
    );
    fc.assert(
      fc.property(
        fc.array(fc.oneof(words, fc.string()), { maxLength: 6 }),
        fc.integer({ min: 200, max: 299 }),
        (parts, status) => {
          const body = parts.join(' ');
          fc.pre(!/error/i.test(body) && !/fail/i.test(body) && !/"message"/.test(body));
          expect(classifyOverflow({ status, body }).kind).toBe('none');
        },
      ),
    );
  });
});

describe('an error carried inside a 2xx is still read', () => {
  it('reads an error envelope in place of the answer (OpenRouter answers 200 with an error object)', () => {
    const body =
      '{"error":{"code":400,"message":"This endpoint\'s maximum context length is 204800 tokens. However, you requested about 244027 tokens."}}';
    expect(classifyOverflow({ status: 200, body })).toMatchObject({ kind: 'context', window: 204_800 });
  });

  it('reads an SSE error event after the 200 was sent', () => {
    const named = `event: error\ndata: {"type":"error","error":{"type":"invalid_request_error","message":"${OVERFLOWS[1]}"}}\n\n`;
    expect(classifyOverflow({ status: 200, body: named }).kind).toBe('context');
    const failed = `event: response.failed\ndata: {"type":"response.failed","response":{"status":"failed","error":{"code":"context_length_exceeded","message":"${OVERFLOWS[0]}"}}}\n\n`;
    expect(classifyOverflow({ status: 200, body: failed }).kind).toBe('context');
  });

  it('reads the payload of a stream error event a client passes on its own', () => {
    // What the provider clients put in ProviderError.body for a stream error: the event's data.
    expect(
      classifyOverflow({ status: 200, body: `{"object":"error","message":"${OVERFLOWS[0]}"}` }).kind,
    ).toBe('context');
    expect(classifyOverflow({ status: 200, body: `{"message":"${OVERFLOWS[1]}"}` }).kind).toBe('context');
  });

  it('reads an error envelope inside an SDK-prefixed or Python-repr text', () => {
    const body = `litellm.BadRequestError: OpenrouterException - Got unexpected response: {'error': {'message': "${OVERFLOWS[0]}"}}`;
    expect(classifyOverflow({ status: 200, body }).kind).toBe('context');
  });
});

describe('isSuccessfulAnswer', () => {
  it('is false for any status outside 2xx, and for an unknown status', () => {
    for (const status of [undefined, 100, 199, 300, 400, 413, 429, 500])
      expect(isSuccessfulAnswer({ status, text: 'fine' })).toBe(false);
  });

  it('is false for a stream with an error event among content events', () => {
    const text = [
      'data: {"choices":[{"delta":{"content":"Hel"}}]}',
      '',
      'data: {"choices":[],"error":{"message":"boom"}}',
      '',
    ].join('\n');
    expect(isSuccessfulAnswer({ status: 200, text })).toBe(false);
  });

  it('is true for a stream of content that only talks about errors', () => {
    const text =
      'data: {"choices":[{"delta":{"content":"the error said the context was exceeded"}}]}\n\ndata: [DONE]\n\n';
    expect(isSuccessfulAnswer({ status: 200, text })).toBe(true);
  });

  it('is true for a completed Responses object whose error field is null', () => {
    const text =
      '{"object":"response","status":"incomplete","error":null,"incomplete_details":{"reason":"max_output_tokens"},"output":[]}';
    expect(isSuccessfulAnswer({ status: 200, text })).toBe(true);
  });
});
