/**
 * Ever new conversations and model names against the proxy's memory store: 1,500 conversations over
 * 600 model names through a real proxy on loopback. The store holds at most its cap (the least
 * recently used go first), every key it holds expires (per-model keys too), and expired keys are
 * swept without anyone reading them again. The resident memory of `spillway serve` under 10,000
 * conversations is measured by `npm run bench -- memory`.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  CALIBRATION_TTL_SECONDS,
  CONVERSATION_TTL_SECONDS,
  createMemoryProxyStore,
  startProxy,
} from '../../src/proxy/index.js';
import { parseProxyConfig } from '../../src/proxy/proxy-config.js';
import { recordHostile, writeHostileResults } from '../support/hostile-results.js';
import { startJsonUpstream } from '../support/json-upstream.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});
afterAll(() => writeHostileResults(fileURLToPath(import.meta.url)));

const CONVERSATIONS = 1_500;
const MODELS = 600;
const CAP = 400;

/** Runs `count` tasks, `width` at a time. */
async function inParallel(count: number, width: number, task: (index: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

describe('the memory store under ever new conversations and model names', () => {
  it('holds at most its cap, and every key it holds expires and is swept unread', async () => {
    let clock = Date.now();
    const store = createMemoryProxyStore({ maxEntries: CAP, now: () => clock, sweepIntervalMs: 0 });
    const upstream = await startJsonUpstream();
    open.push(upstream);
    const proxy = await startProxy({
      upstream: upstream.url,
      port: 0,
      store,
      config: parseProxyConfig({ context_length: 32_768, probe_limits: false }),
    });
    open.push(proxy);
    let answered = 0;
    await inParallel(CONVERSATIONS, 8, async (index) => {
      const response = await fetch(`${proxy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: `client-model-${index % MODELS}`,
          messages: [
            { role: 'system', content: `Agent ${index}.` },
            { role: 'user', content: `Task ${index}: ${'describe the ledger '.repeat(20)}` },
          ],
          max_tokens: 16,
        }),
      });
      await response.arrayBuffer();
      if (response.ok) answered++;
    });
    expect(answered).toBe(CONVERSATIONS);
    const held = store.size;
    expect(held).toBeLessThanOrEqual(CAP);
    // Past the longest expiry (conversations and calibration), nothing is left, read or not.
    clock += Math.max(CONVERSATION_TTL_SECONDS, CALIBRATION_TTL_SECONDS) * 1_000 + 1;
    const swept = store.sweep();
    expect(store.size).toBe(0);
    recordHostile('memory_store', {
      conversations: CONVERSATIONS,
      model_names: MODELS,
      keys_written: CONVERSATIONS + MODELS,
      cap: CAP,
      held_at_most: held,
      held_over_cap: Math.max(0, held - CAP),
      left_after_expiry: store.size,
      swept,
    });
  }, 120_000);
});
