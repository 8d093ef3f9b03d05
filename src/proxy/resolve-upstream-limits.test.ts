import { describe, expect, it } from 'vitest';
import { DiscoveryCache } from '../models/index.js';
import { RESOLVED_LIMITS_REUSE_MS, resolveUpstreamLimitsReused } from './resolve-upstream-limits.js';

/** A vLLM-like server whose window can change, counting the requests it gets. */
function server(): { fetch: typeof fetch; state: { calls: number; window: number } } {
  const state = { calls: 0, window: 8_192 };
  const answer = (async (input: string | URL | Request): Promise<Response> => {
    state.calls++;
    if (new URL(String(input)).pathname === '/v1/models')
      return Response.json({ data: [{ id: 'm', max_model_len: state.window, owned_by: 'vllm' }] });
    return new Response('not found', { status: 404 });
  }) as typeof fetch;
  return { fetch: answer, state };
}

describe('resolveUpstreamLimitsReused', () => {
  it('reuses limits for the same inputs while the discovery cache is unchanged, and no longer', async () => {
    let now = 0;
    const cache = new DiscoveryCache({ ttlMs: 60_000, now: () => now });
    const { fetch, state } = server();
    const resolve = (learned = {}) =>
      resolveUpstreamLimitsReused({
        model: 'm',
        baseUrl: 'http://vllm',
        settings: {},
        learned,
        cache,
        fetch,
        probe: false,
      });
    const first = await resolve();
    expect(first.contextLength).toBe(8_192);
    const calls = state.calls;
    expect(await resolve()).toBe(first);
    // Other inputs (a window learned for the client) are resolved, not reused.
    expect((await resolve({ contextLength: 4_000 })).contextLength).toBe(4_000);
    // Past the reuse, the discovery cache answers (still fresh: no new request to the server).
    now += RESOLVED_LIMITS_REUSE_MS;
    expect(await resolve()).not.toBe(first);
    expect(state.calls).toBe(calls);
    // A forgotten discovery result is looked up again at once, and its new window is the one used.
    state.window = 16_384;
    cache.clear();
    expect((await resolve()).contextLength).toBe(16_384);
  });
});
