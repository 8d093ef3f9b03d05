import { describe, expect, it } from 'vitest';
import { notAnErrorBody } from './not-an-error-body.js';

describe('notAnErrorBody', () => {
  it('names what the input is when it is no rejection', () => {
    expect(notAnErrorBody('  \n')).toMatch(/^the input is empty, not an error body/);
    expect(notAnErrorBody('{"error":{"message":"x"}}', 200)).toMatch(/an HTTP 200 answer \(a success\)/);
    expect(
      notAnErrorBody('{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"hi"}]}'),
    ).toMatch(/a model's reply/);
    expect(notAnErrorBody('{"model":"gpt-4o","messages":[{"role":"user","content":"too long?"}]}')).toMatch(
      /a request/,
    );
    expect(notAnErrorBody('Hello there, how can I help?')).toMatch(/text that names no error/);
  });

  it('leaves alone whatever may be a rejection', () => {
    for (const body of [
      '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
      '{"detail":"Not Found"}',
      '{"message":"Too many requests"}',
      'litellm.BadRequestError: AnthropicException - prompt is too long',
      'data: {"error":{"message":"maximum context length is 8192 tokens"}}',
      'HTTP 413: Payload Too Large',
    ])
      expect(notAnErrorBody(body, 400)).toBeUndefined();
  });
});
