/**
 * @module
 * The proxy's stored state as its requests use it: the store behind a circuit breaker, every failure
 * counted, the first one and every change of the breaker logged. A store that fails never fails a
 * request, and one that hangs stops costing requests time once the breaker opens.
 */
import type { ProxyMetrics } from './proxy-metrics.js';
import type { ProxyLogEntry } from './proxy-runtime.js';
import { ProxyState } from './proxy-state.js';
import type { ProxyStore } from './proxy-store.js';
import {
  type CircuitBreakerOptions,
  isCircuitOpenError,
  withCircuitBreaker,
} from './store-circuit-breaker.js';

/**
 * Opens the typed state over `store`, guarded by a circuit breaker.
 *
 * @example
 * const state = openProxyState({ store, scope: upstreamScope(upstreamRoot), metrics, log });
 */
export function openProxyState({
  store,
  scope,
  metrics,
  log,
  breaker = {},
}: {
  store: ProxyStore;
  /** What keeps this upstream's state apart from another's in a shared store (`upstreamScope`). */
  scope: string;
  metrics: ProxyMetrics;
  log: (entry: ProxyLogEntry) => void;
  breaker?: Omit<CircuitBreakerOptions, 'onStateChange'>;
}): { state: ProxyState; markUnreachable(error: unknown): void } {
  let errorLogged = false;
  const guarded = withCircuitBreaker(store, {
    ...breaker,
    onStateChange(circuit, cause) {
      metrics.storeCircuitOpen.set(circuit === 'closed' ? 0 : 1);
      if (circuit === 'half_open') return;
      if (circuit === 'open') metrics.storeCircuitOpens.add();
      log({
        level: circuit === 'open' ? 'warn' : 'info',
        event: circuit === 'open' ? 'store_circuit_open' : 'store_circuit_closed',
        store: store.kind,
        message:
          circuit === 'open'
            ? `the ${store.kind} store keeps failing (${(cause as Error | undefined)?.message ?? 'no answer'}); serving without stored state, trying it again in the background`
            : `the ${store.kind} store answers again; stored state is back`,
      });
    },
  });
  const state = new ProxyState({
    store: guarded,
    scope,
    onError(error, operation) {
      const name = operation.split(' ')[0] ?? operation;
      if (isCircuitOpenError(error)) {
        metrics.storeSkipped.add({ operation: name });
        return;
      }
      metrics.storeErrors.add({ operation: name });
      // Logged once (the metric counts every failure), not once per request.
      if (errorLogged) return;
      errorLogged = true;
      log({
        level: 'warn',
        event: 'store_error',
        message: `the ${store.kind} store failed to ${operation} (${(error as Error).message}); serving without stored state`,
      });
    },
  });
  return {
    state,
    markUnreachable(error) {
      errorLogged = true;
      log({
        level: 'warn',
        event: 'store_error',
        message: `the ${store.kind} store is not reachable (${(error as Error).message}); serving without stored state until it is`,
      });
    },
  };
}
