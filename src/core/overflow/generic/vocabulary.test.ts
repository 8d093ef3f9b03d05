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
  ])('keeps %j at none', (text, gate) => {
    expect(nearMissGate(text)).toBe(gate);
  });

  it('lets overflow wording through', () => {
    expect(nearMissGate('Request body too large for gpt-4o model. Max size: 8000 tokens.')).toBeUndefined();
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
