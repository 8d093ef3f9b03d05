import { describe, expect, it } from 'vitest';
import { ProviderError } from './provider-error.js';

// vLLM's scheduler warning on a request it answered (corpus vllm-scheduler-warning-02).
const WARNING =
  'WARNING 02-13 07:19:11 scheduler.py:949] Input prompt (32889 tokens) is too long and exceeds limit of 2048';

describe('ProviderError and the 2xx rule', () => {
  it('never marks a 2xx answer as an overflow, so it stays retryable as any other failure', () => {
    const error = new ProviderError('the provider answered without choices[0].message', {
      failure: 'stream_error',
      status: 200,
      body: JSON.stringify({ warning: WARNING, choices: [] }),
    });
    expect(error.overflow.kind).toBe('none');
    expect(error.retryable).toBe(true);
  });

  it('still reads an error a provider sends inside a 200 (a stream error event)', () => {
    const error = new ProviderError('the provider sent an error in the stream', {
      failure: 'stream_error',
      status: 200,
      body: '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}',
    });
    expect(error.overflow).toMatchObject({ kind: 'context', input: 208_310, window: 200_000 });
    expect(error.retryable).toBe(false);
  });

  it('reads the same warning as an overflow when it is the body of a rejection', () => {
    const error = new ProviderError('HTTP 400', { failure: 'http', status: 400, body: WARNING });
    expect(error.overflow.kind).toBe('context');
  });
});
