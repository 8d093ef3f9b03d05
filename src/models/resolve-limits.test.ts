import { describe, expect, it } from 'vitest';
import { FALLBACK_CONTEXT_LENGTH } from '../core/index.js';
import { resolveLimits } from './resolve-limits.js';

/** A llama.cpp-like server at any URL: n_ctx 6,144 and an n_predict of 700. */
function server(): typeof fetch & { calls: number } {
  const state = { calls: 0 };
  const implementation = async (input: string | URL | Request): Promise<Response> => {
    state.calls += 1;
    if (new URL(String(input)).pathname === '/props')
      return Response.json({
        n_ctx: 6_144,
        default_generation_settings: { n_ctx: 6_144, params: { n_predict: 700 } },
      });
    return new Response('not found', { status: 404 });
  };
  return Object.assign(implementation as typeof fetch, {
    get calls() {
      return state.calls;
    },
  });
}

describe('resolveLimits', () => {
  it('takes each figure from the first source that states it: config > learned > discovery > catalog > fallback', async () => {
    const fetch = server();
    const base = { model: 'gpt-4o', baseUrl: 'http://local:8080', fetch, cache: false as const };
    expect(
      await resolveLimits({ ...base, config: { contextLength: 50_000, outputCap: 2_000 } }),
    ).toMatchObject({
      contextLength: 50_000,
      outputCap: 2_000,
      source: { contextLength: 'config', outputCap: 'config' },
    });
    // Configuration and learned limits settle both figures: no probe is sent.
    expect(fetch.calls).toBe(0);
    expect(
      await resolveLimits({
        ...base,
        config: { outputCap: 2_000 },
        learned: { 'gpt-4o': { contextLength: 21_000 } },
      }),
    ).toMatchObject({
      contextLength: 21_000,
      outputCap: 2_000,
      source: { contextLength: 'learned', outputCap: 'config' },
    });
    expect(fetch.calls).toBe(0);
    expect(await resolveLimits({ ...base, learned: { 'GPT-4o': { contextLength: 21_000 } } })).toMatchObject({
      contextLength: 21_000,
      outputCap: 700,
      source: { contextLength: 'learned', outputCap: 'discovery:/props' },
    });
    expect(await resolveLimits(base)).toMatchObject({
      contextLength: 6_144,
      source: { contextLength: 'discovery:/props', outputCap: 'discovery:/props' },
    });
    const { baseUrl: _, ...withoutServer } = base;
    expect(await resolveLimits(withoutServer)).toMatchObject({
      contextLength: 128_000,
      outputCap: 16_384,
      source: { contextLength: 'catalog', outputCap: 'catalog' },
    });
    const unknown = await resolveLimits({ model: 'my-finetune-v3' });
    expect(unknown).toEqual({
      model: 'my-finetune-v3',
      contextLength: FALLBACK_CONTEXT_LENGTH,
      source: { contextLength: 'fallback', outputCap: 'fallback' },
    });
  });

  it('ignores implausible learned figures and rejects invalid configuration', async () => {
    expect(
      await resolveLimits({ model: 'gpt-4o', learned: { 'gpt-4o': { contextLength: 12 } } }),
    ).toMatchObject({
      source: { contextLength: 'catalog' },
    });
    await expect(resolveLimits({ model: 'gpt-4o', config: { contextLength: -1 } })).rejects.toThrow(
      /config.contextLength must be a positive integer/,
    );
    await expect(resolveLimits({ model: ' ' })).rejects.toThrow(/non-empty model id/);
  });
});
