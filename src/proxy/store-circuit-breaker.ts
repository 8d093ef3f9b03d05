/**
 * @module
 * A circuit breaker in front of a proxy store. A store that fails or hangs (a frozen Redis answers
 * nothing, so every command waits out its timeout) would add that wait to every request; after a
 * few failures in a row the breaker opens and requests go on at once without stored state. While it
 * is open, the store is tried again in the background, never on a request's time: the first success
 * closes it.
 */
import { SpillwayError } from '../core/index.js';
import type { ProxyStore } from './proxy-store.js';

/** Failures in a row that open the breaker. */
export const STORE_FAILURES_TO_OPEN = 3;

/** How long the breaker stays open before the store is tried again (in the background). */
export const STORE_RETRY_AFTER_MS = 5_000;

/** Where the breaker stands: `closed` (using the store), `open` (not using it), `half_open` (trying it). */
export type CircuitState = 'closed' | 'open' | 'half_open';

/** Options of {@link withCircuitBreaker}. */
export interface CircuitBreakerOptions {
  failuresToOpen?: number;
  retryAfterMs?: number;
  now?: () => number;
  /** Told on every change of state (log it, count it). */
  onStateChange?: (state: CircuitState, cause?: unknown) => void;
}

/** A store behind a breaker, with its state. */
export interface GuardedProxyStore extends ProxyStore {
  readonly circuit: CircuitState;
}

/** Whether an error is the breaker refusing an operation (the store was not asked). */
export function isCircuitOpenError(error: unknown): boolean {
  return SpillwayError.isInstance(error) && error.data.circuit === 'open';
}

/**
 * Wraps a store: operations pass through while it works; after `failuresToOpen` failures in a row
 * they are refused at once (`isCircuitOpenError`) for `retryAfterMs`, then the next operation starts
 * one background try of the store (a read) and is itself refused; the try's success closes the
 * breaker, its failure keeps it open for another `retryAfterMs`.
 *
 * @example
 * const store = withCircuitBreaker(createRedisProxyStore({ url }), { onStateChange: (state) => log(state) });
 */
export function withCircuitBreaker(
  store: ProxyStore,
  options: CircuitBreakerOptions = {},
): GuardedProxyStore {
  const {
    failuresToOpen = STORE_FAILURES_TO_OPEN,
    retryAfterMs = STORE_RETRY_AFTER_MS,
    now = Date.now,
    onStateChange = () => undefined,
  } = options;
  let state: CircuitState = 'closed';
  let failures = 0;
  let openedAt = 0;
  const move = (next: CircuitState, cause?: unknown): void => {
    if (next === state) return;
    state = next;
    onStateChange(next, cause);
  };
  const refused = (): SpillwayError =>
    new SpillwayError(
      'provider_error',
      `the ${store.kind} store failed ${failuresToOpen} times in a row; it is not used until it answers again`,
      { data: { circuit: 'open' } },
    );
  const tryInBackground = (): void => {
    move('half_open');
    store.get('spillway:circuit-probe').then(
      () => {
        failures = 0;
        move('closed');
      },
      (error: unknown) => {
        openedAt = now();
        move('open', error);
      },
    );
  };
  const succeeded = <T>(result: T): T => {
    failures = 0;
    return result;
  };
  const failed = (error: unknown): never => {
    failures++;
    if (failures >= failuresToOpen && state === 'closed') {
      openedAt = now();
      move('open', error);
    }
    throw error;
  };
  // Settled with `then`, not an async function: every request reads through here.
  const guard = <T>(operation: () => Promise<T>): Promise<T> => {
    if (state === 'half_open') return Promise.reject(refused());
    if (state === 'open') {
      if (now() - openedAt >= retryAfterMs) tryInBackground();
      return Promise.reject(refused());
    }
    let pending: Promise<T>;
    try {
      pending = operation();
    } catch (error) {
      pending = Promise.reject(error);
    }
    return pending.then(succeeded, failed);
  };
  return {
    kind: store.kind,
    get circuit() {
      return state;
    },
    get: (key) => guard(() => store.get(key)),
    set: (key, value, setOptions) => guard(() => store.set(key, value, setOptions)),
    delete: (key) => guard(() => store.delete(key)),
    getMany: (keys) =>
      guard(() => (store.getMany ? store.getMany(keys) : Promise.all(keys.map((key) => store.get(key))))),
    setMany: (entries) =>
      guard(async () => {
        if (store.setMany) await store.setMany(entries);
        else await Promise.all(entries.map(({ key, value, ...options }) => store.set(key, value, options)));
      }),
    ...(store.ready ? { ready: () => (store.ready as () => Promise<void>)() } : {}),
    close: () => store.close(),
  };
}
