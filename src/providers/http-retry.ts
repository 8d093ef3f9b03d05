/**
 * @module
 * When to retry a failed send, and how long to wait, as the Stainless SDKs (openai-node,
 * anthropic-sdk-typescript) do it: obey `x-should-retry`; retry 408, 409, 429 and 5xx and connection
 * failures; wait `retry-after-ms`, else `retry-after` (seconds or an HTTP date), else a rate-limit
 * reset header, else an exponential backoff with jitter. An overflow is never retried unchanged, even
 * when it arrives as a 500 or inside a 200 stream.
 */
import type { ProviderError } from './provider-error.js';

/** Retry settings. */
export interface RetryOptions {
  /** Retries after the first attempt (default 2, as the official SDKs). */
  maxRetries?: number;
  /** First backoff in ms (default 500), doubled per attempt. */
  initialDelayMs?: number;
  /** Longest backoff in ms (default 8,000). */
  maxDelayMs?: number;
  /** Server-suggested waits longer than this are not honoured (default 60,000). */
  maxServerDelayMs?: number;
  /** Randomness for the jitter, in [0, 1). */
  random?: () => number;
  /** The clock, for HTTP-date `retry-after` values. */
  now?: () => number;
  /** Waits between attempts; must reject when the signal aborts (tests pass one that does not wait). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Whether a failure may be retried unchanged. */
export function isRetryableFailure(error: ProviderError): boolean {
  if (error.failure === 'aborted' || error.failure === 'malformed_response') return false;
  if (error.overflow.kind !== 'none') return false;
  const should = error.headers['x-should-retry'];
  if (should === 'true') return true;
  if (should === 'false') return false;
  if (error.failure === 'connection') return true;
  // Interrupted streams have their own retry class in the tool loop; the client does not repeat them,
  // nor a stream that went silent (it would wait as long again).
  if (error.failure === 'stream_interrupted' || error.failure === 'stream_timeout') return false;
  const status = error.status;
  if (status === undefined) return error.failure === 'stream_error';
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** The wait before retry number `attempt` (0-based), in ms. */
export function retryDelayMs(error: ProviderError, attempt: number, options: RetryOptions = {}): number {
  const {
    initialDelayMs = 500,
    maxDelayMs = 8_000,
    maxServerDelayMs = 60_000,
    random = Math.random,
    now = Date.now,
  } = options;
  const server = serverDelayMs(error.headers, now);
  if (server !== undefined && server >= 0 && server <= maxServerDelayMs) return server;
  const backoff = Math.min(initialDelayMs * 2 ** attempt, maxDelayMs);
  return Math.round(backoff * (1 - 0.25 * random()));
}

/** What the response headers ask for, in ms, if anything. */
export function serverDelayMs(
  headers: Record<string, string>,
  now: () => number = Date.now,
): number | undefined {
  const ms = headers['retry-after-ms'];
  if (ms !== undefined && Number.isFinite(Number(ms))) return Number(ms);
  const after = headers['retry-after'];
  if (after !== undefined) {
    if (Number.isFinite(Number(after))) return Number(after) * 1000;
    const date = Date.parse(after);
    if (Number.isFinite(date)) return Math.max(0, date - now());
  }
  // Rate-limit reset times: OpenAI sends durations ("1s", "6m0s", "120ms"), Anthropic RFC 3339 dates.
  for (const name of ['x-ratelimit-reset-requests', 'x-ratelimit-reset-tokens']) {
    const duration = parseDuration(headers[name]);
    if (duration !== undefined) return duration;
  }
  for (const name of [
    'anthropic-ratelimit-requests-reset',
    'anthropic-ratelimit-tokens-reset',
    'anthropic-ratelimit-input-tokens-reset',
  ]) {
    const value = headers[name];
    const date = value === undefined ? Number.NaN : Date.parse(value);
    if (Number.isFinite(date)) return Math.max(0, date - now());
  }
  return undefined;
}

/** Parses `1h2m3.5s`, `250ms`, `6m0s` into ms. */
export function parseDuration(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match =
    /^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+(?:\.\d+)?)ms)?$/.exec(
      value.trim(),
    );
  if (!match || value.trim() === '') return undefined;
  const [, hours = '0', minutes = '0', seconds = '0', millis = '0'] = match;
  return Math.round(
    Number(hours) * 3_600_000 + Number(minutes) * 60_000 + Number(seconds) * 1000 + Number(millis),
  );
}
