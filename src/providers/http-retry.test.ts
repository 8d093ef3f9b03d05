import { describe, expect, it } from 'vitest';
import { isRetryableFailure, parseDuration, retryDelayMs, serverDelayMs } from './http-retry.js';
import { ProviderError } from './provider-error.js';

const http = (status: number, headers: Record<string, string> = {}, body = '{"error":{"message":"boom"}}') =>
  new ProviderError('x', { failure: 'http', status, headers, body });

describe('retry policy', () => {
  it('retries 408, 409, 429 and 5xx, not other 4xx', () => {
    expect([408, 409, 429, 500, 502, 503, 529].map((status) => isRetryableFailure(http(status)))).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
    expect([400, 401, 403, 404, 413, 422].map((status) => isRetryableFailure(http(status)))).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('obeys x-should-retry either way', () => {
    expect(isRetryableFailure(http(400, { 'x-should-retry': 'true' }))).toBe(true);
    expect(isRetryableFailure(http(503, { 'x-should-retry': 'false' }))).toBe(false);
  });

  it('never retries an overflow, even one sent as a 500 or 503', () => {
    const localai = http(
      500,
      {},
      '{"error":{"code":500,"message":"the request exceeds the available context size, try increasing it","type":"server_error"}}',
    );
    expect(localai.overflow.kind).toBe('context');
    expect(isRetryableFailure(localai)).toBe(false);
    expect(
      isRetryableFailure(
        http(503, { 'x-should-retry': 'true' }, 'prompt is too long: 210000 tokens > 200000 maximum'),
      ),
    ).toBe(false);
  });

  it('honours retry-after-ms, then retry-after in seconds or as a date, then rate-limit resets', () => {
    const now = () => Date.UTC(2026, 0, 1);
    expect(serverDelayMs({ 'retry-after-ms': '250', 'retry-after': '9' })).toBe(250);
    expect(serverDelayMs({ 'retry-after': '3' })).toBe(3_000);
    expect(serverDelayMs({ 'retry-after': new Date(now() + 5_000).toUTCString() }, now)).toBe(5_000);
    expect(serverDelayMs({ 'x-ratelimit-reset-requests': '6m0s' })).toBe(360_000);
    expect(
      serverDelayMs({ 'anthropic-ratelimit-tokens-reset': new Date(now() + 1_500).toISOString() }, now),
    ).toBe(1_500);
  });

  it('backs off exponentially with jitter, capped, and ignores server waits over a minute', () => {
    expect(retryDelayMs(http(500), 0, { random: () => 0 })).toBe(500);
    expect(retryDelayMs(http(500), 3, { random: () => 0 })).toBe(4_000);
    expect(retryDelayMs(http(500), 10, { random: () => 0 })).toBe(8_000);
    expect(retryDelayMs(http(500), 0, { random: () => 0.999 })).toBeGreaterThanOrEqual(375);
    expect(retryDelayMs(http(429, { 'retry-after': '3600' }), 0, { random: () => 0 })).toBe(500);
  });

  it('parses Go-style durations', () => {
    expect(parseDuration('1h2m3.5s')).toBe(3_723_500);
    expect(parseDuration('120ms')).toBe(120);
    expect(parseDuration('soon')).toBeUndefined();
  });
});
