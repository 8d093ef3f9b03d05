import { isRetryableFailure, type RetryOptions, retryDelayMs } from './http-retry.js';
import { ProviderError } from './provider-error.js';

/** What {@link withRetries} reports before each retry. */
export interface RetryNotice {
  attempt: number;
  delayMs: number;
  error: ProviderError;
}

/**
 * Runs `send`, retrying retryable provider failures with the SDKs' backoff. `sleep` is injectable so
 * tests do not wait; it must reject when `signal` aborts.
 */
export async function withRetries<T>(
  send: () => Promise<T>,
  {
    signal,
    onRetry,
    sleep = abortableSleep,
    ...options
  }: RetryOptions & { signal?: AbortSignal; onRetry?: (notice: RetryNotice) => void } = {},
): Promise<T> {
  const maxRetries = options.maxRetries ?? 2;
  for (let attempt = 0; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (!ProviderError.isInstance(error) || attempt >= maxRetries || !isRetryableFailure(error))
        throw error;
      const delayMs = retryDelayMs(error, attempt, options);
      onRetry?.({ attempt: attempt + 1, delayMs, error });
      await sleep(delayMs, signal);
    }
  }
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new ProviderError('the request was aborted', { failure: 'aborted' }));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ProviderError('the request was aborted', { failure: 'aborted' }));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
