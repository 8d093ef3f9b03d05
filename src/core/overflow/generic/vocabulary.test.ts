import { describe, expect, it } from 'vitest';
import { kindFromWords, nearMissGate } from './vocabulary.js';

describe('near-miss gates', () => {
  it.each([
    [
      'Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Requested 31538.',
      'near-miss-rate-limit',
    ],
    ['This request would exceed the rate limit of 20,000 input tokens per minute.', 'near-miss-rate-limit'],
    ['Too many tokens, please wait before trying again.', 'near-miss-rate-limit'],
    ['Current token count exceeds your organization quota', 'near-miss-quota'],
    ['Your credit balance is too low to access the API.', 'near-miss-quota'],
    ['Incorrect API key provided', 'near-miss-auth'],
    ['Request exceeds the maximum size', 'near-miss-byte-size'],
    ['Request payload size exceeds the limit: 314572800 bytes.', 'near-miss-byte-size'],
    ['The model is overloaded. Please try again later.', 'near-miss-overloaded'],
    ['Could not parse response content as the length limit was reached', 'near-miss-output-truncated'],
    ["Invalid 'tools': array too long. Expected an array with maximum length 128", 'near-miss-validation'],
    ["Invalid 'max_tokens': integer above maximum value. Expected a value <= 16384", 'near-miss-validation'],
    ['`max_tokens` must be greater than `thinking.budget_tokens`.', 'near-miss-validation'],
    // near-misses.jsonl anthropic-image-pixels-8000-01, vllm-images-per-request-01, anthropic-pdf-pages-02
    [
      'image.source.base64.data: At least one of the image dimensions exceed max allowed size: 8000 pixels',
      'near-miss-media',
    ],
    ['At most 5 image(s) may be provided in one request.', 'near-miss-media'],
    ['request contains 52 images, exceeding the maximum of 50 allowed per request', 'near-miss-media'],
    ['A maximum of 100 PDF pages may be provided.', 'near-miss-media'],
    // claude-code-mcp-cap-01, claude-code-read-cap-01
    [
      'Error: MCP tool "approvals" response (26638 tokens) exceeds maximum allowed tokens (25000).',
      'near-miss-tool-output',
    ],
    ['File content (22488 tokens) exceeds maximum allowed tokens (20000).', 'near-miss-tool-output'],
    // hf-tokenizer-warning-01, hf-generate-reminder-01, llamacpp-n-ctx-train-warning-01, ollama-truncating-warning-01
    [
      'Token indices sequence length is longer than the specified maximum sequence length for this model (2409 > 2048). Running this sequence through the model will result in indexing errors',
      'near-miss-advisory',
    ],
    [
      "This is a friendly reminder - the current text generation call will exceed the model's predefined maximum length (32768).",
      'near-miss-advisory',
    ],
    ['n_ctx_per_seq (4096) > n_ctx_train (2048) -- possible training context overflow', 'near-miss-advisory'],
    ['level=WARN msg="truncating input prompt" limit=2048 prompt=5065 keep=5 new=2048', 'near-miss-advisory'],
  ])('keeps %j at none', (text, gate) => {
    expect(nearMissGate(text)).toBe(gate);
  });

  it('lets overflow wording through', () => {
    expect(nearMissGate('Request body too large for gpt-4o model. Max size: 8000 tokens.')).toBeUndefined();
    // Overflows that mention images, truncation, a watsonx sequence length, or a 403 status line.
    expect(nearMissGate('Total tokens of image and text exceed max message tokens')).toBeUndefined();
    expect(
      nearMissGate(
        'The decoder prompt (length 163840) is longer than the maximum model length of 131072. For image inputs, the number of image tokens depends on the number of images.',
      ),
    ).toBeUndefined();
    expect(nearMissGate('Cannot truncate prompt with n_keep (8250) >= n_ctx (4096)')).toBeUndefined();
    expect(
      nearMissGate(
        'Token sequence length is longer than the specified maximum sequence length for this model (1336 > 512).',
      ),
    ).toBeUndefined();
    expect(
      nearMissGate(
        'code: http_403 Forbidden, message: Context window exceeded: 306234 tokens exceeds the limit of 272000 tokens',
      ),
    ).toBeUndefined();
    expect(
      nearMissGate('litellm.ServiceUnavailableError: litellm.MidStreamFallbackError: prompt is too long'),
    ).toBeUndefined();
  });
});

describe('kindFromWords', () => {
  it.each([
    ['Request input tokens exceed model token limit. Reduce the input size.', 'context'],
    ['Provider context length exceeded.', 'context'],
    ['ContextWindowExceededError', 'context'],
    ['The chat session is larger than the context window!', 'context'],
    ['Input prompt is too big compared to KV size.', 'context'],
    ['Input prompt (1217 tokens) is too long and exceeds the capacity of block_manager', 'context'],
    ['Please reduce the length of the messages or completion.', 'context'],
    ['Context too large', 'context'],
    ['Requested max_tokens exceeds the model output limit', 'output_cap'],
    ['{"stop_reason":"model_context_window_exceeded"}', 'budget'],
  ])('reads %j as %s', (text, kind) => {
    expect(kindFromWords(text)).toBe(kind);
  });

  it('says nothing of text that is not about an overflow', () => {
    expect(kindFromWords('internal error while computing the context window')).toBeUndefined();
    expect(kindFromWords("Invalid 'messages[10].tool_calls[0].id': string too long.")).toBeUndefined();
  });
});
