import { describe, expect, it } from 'vitest';
import { createMemoryProxyStore, type ProxyStore } from './proxy-store.js';
import { type CircuitState, isCircuitOpenError, withCircuitBreaker } from './store-circuit-breaker.js';

/** A memory store that fails every operation while `down` is set, counting what reached it. */
function flakyStore(): ProxyStore & { down: boolean; calls: number } {
  const inner = createMemoryProxyStore();
  const store = {
    kind: 'redis' as const,
    down: false,
    calls: 0,
    async get(key: string) {
      store.calls++;
      if (store.down) throw new Error('Command timed out');
      return inner.get(key);
    },
    async set(key: string, value: string) {
      store.calls++;
      if (store.down) throw new Error('Command timed out');
      return inner.set(key, value);
    },
    async delete(key: string) {
      store.calls++;
      return inner.delete(key);
    },
    close: () => inner.close(),
  };
  return store;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('withCircuitBreaker', () => {
  it('opens after failures in a row, refuses without asking the store, and closes after a background try', async () => {
    let now = 0;
    const states: CircuitState[] = [];
    const store = flakyStore();
    const guarded = withCircuitBreaker(store, {
      failuresToOpen: 3,
      retryAfterMs: 1_000,
      now: () => now,
      onStateChange: (state) => states.push(state),
    });
    await guarded.set('k', 'v');
    store.down = true;
    for (let index = 0; index < 3; index++) await expect(guarded.get('k')).rejects.toThrow('timed out');
    expect(guarded.circuit).toBe('open');
    const reached = store.calls;
    for (let index = 0; index < 10; index++)
      await expect(guarded.get('k')).rejects.toSatisfy(isCircuitOpenError);
    expect(store.calls).toBe(reached);

    // After the pause, one background try; it fails, so the breaker stays open for another pause.
    now = 1_000;
    await expect(guarded.get('k')).rejects.toSatisfy(isCircuitOpenError);
    await settle();
    expect(store.calls).toBe(reached + 1);
    expect(guarded.circuit).toBe('open');
    now = 1_500;
    await expect(guarded.get('k')).rejects.toSatisfy(isCircuitOpenError);
    expect(store.calls).toBe(reached + 1);

    store.down = false;
    now = 2_000;
    await expect(guarded.get('k')).rejects.toSatisfy(isCircuitOpenError);
    await settle();
    expect(guarded.circuit).toBe('closed');
    expect(await guarded.get('k')).toBe('v');
    expect(states).toEqual(['open', 'half_open', 'open', 'half_open', 'closed']);
  });

  it('does not open on failures that are not in a row', async () => {
    const store = flakyStore();
    const guarded = withCircuitBreaker(store, { failuresToOpen: 3 });
    for (let index = 0; index < 10; index++) {
      store.down = index % 3 !== 2;
      await guarded.get('k').catch(() => undefined);
    }
    expect(guarded.circuit).toBe('closed');
  });

  it('counts a store that throws instead of rejecting as failing, and hands back a rejection', async () => {
    const inner = createMemoryProxyStore();
    const throwing: ProxyStore = {
      ...inner,
      kind: 'redis',
      get: () => {
        throw new Error('not connected');
      },
    };
    const guarded = withCircuitBreaker(throwing, { failuresToOpen: 2 });
    const first = guarded.get('k');
    await expect(first).rejects.toThrow('not connected');
    await expect(guarded.get('k')).rejects.toThrow('not connected');
    expect(guarded.circuit).toBe('open');
    await expect(guarded.get('k')).rejects.toSatisfy(isCircuitOpenError);
  });
});
