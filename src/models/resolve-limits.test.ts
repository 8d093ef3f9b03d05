import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FALLBACK_CONTEXT_LENGTH } from '../core/index.js';
import { LIMIT_SOURCE_ORDER, limitSourceRank } from './limit-source.js';
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

/** A LiteLLM-like gateway claiming 9,600 / 9,600 for a hosted vLLM that enforces 21,000. */
function gateway(): typeof fetch & { probes: unknown[] } {
  const probes: unknown[] = [];
  const implementation = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const path = new URL(String(input)).pathname;
    if (path === '/model/info')
      return Response.json({
        data: [
          {
            model_name: 'glm5.2',
            litellm_params: { model: 'hosted_vllm/glm5.2' },
            model_info: {
              max_input_tokens: 9_600,
              max_output_tokens: 9_600,
              litellm_provider: 'hosted_vllm',
            },
          },
        ],
      });
    if (path === '/v1/chat/completions') {
      probes.push(JSON.parse(String(init?.body)));
      const message =
        'litellm.BadRequestError: Hosted_vllmException - {"error":{"message":"max_tokens=1000000000 cannot be greater than max_model_len=max_total_tokens=21000. Please request fewer output tokens. (parameter=max_tokens, value=1000000000)","type":"BadRequestError","param":"max_tokens","code":400}}. Received Model Group=glm5.2\nAvailable Model Group Fallbacks=None';
      return Response.json({ error: { message, type: null, param: null, code: '400' } }, { status: 400 });
    }
    return new Response('not found', { status: 404 });
  };
  return Object.assign(implementation as typeof fetch, { probes });
}

describe('resolveLimits', () => {
  it('takes each figure from the strongest source: hard > stated > discovered > catalog > config > fallback', async () => {
    const fetch = server();
    const base = { model: 'gpt-4o', baseUrl: 'http://local:8080', fetch, cache: false as const };
    expect(
      await resolveLimits({ ...base, hard: { contextLength: 50_000 }, config: { outputCap: 2_000 } }),
    ).toMatchObject({
      contextLength: 50_000,
      outputCap: 700,
      source: { contextLength: 'config:hard', outputCap: 'discovered:/props' },
    });
    expect(await resolveLimits({ ...base, learned: { 'GPT-4o': { contextLength: 21_000 } } })).toMatchObject({
      contextLength: 21_000,
      outputCap: 700,
      source: { contextLength: 'stated', outputCap: 'discovered:/props' },
    });
    expect(await resolveLimits({ ...base, config: { contextLength: 4_000 } })).toMatchObject({
      contextLength: 6_144,
      source: { contextLength: 'discovered:/props', outputCap: 'discovered:/props' },
      figures: {
        contextLength: [
          { value: 6_144, source: 'discovered:/props' },
          { value: 128_000, source: 'catalog' },
          { value: 4_000, source: 'config' },
        ],
      },
    });
    const { baseUrl: _, ...withoutServer } = base;
    expect(await resolveLimits(withoutServer)).toMatchObject({
      contextLength: 128_000,
      outputCap: 16_384,
      source: { contextLength: 'catalog', outputCap: 'catalog' },
    });
    expect(await resolveLimits({ model: 'my-finetune-v3', config: { contextLength: 16_000 } })).toMatchObject(
      {
        contextLength: 16_000,
        source: { contextLength: 'config', outputCap: 'fallback' },
      },
    );
    expect(await resolveLimits({ model: 'my-finetune-v3' })).toEqual({
      model: 'my-finetune-v3',
      contextLength: FALLBACK_CONTEXT_LENGTH,
      source: { contextLength: 'fallback', outputCap: 'fallback' },
      figures: { contextLength: [], outputCap: [] },
    });
  });

  it('tells the user once when a stronger source overrides a weaker one, with both figures and sources', async () => {
    const limits = await resolveLimits({
      model: 'gpt-4o',
      learned: { 'gpt-4o': { contextLength: 21_000 } },
      config: { contextLength: 40_000 },
    });
    expect(limits.notices).toEqual([
      expect.objectContaining({
        kind: 'limit_overridden',
        figure: 'context_length',
        value: 21_000,
        source: 'stated',
        overridden: [
          { value: 128_000, source: 'catalog' },
          { value: 40_000, source: 'config' },
        ],
      }),
    ]);
    const agreeing = await resolveLimits({ model: 'gpt-4o', config: { contextLength: 128_000 } });
    expect(agreeing.notices).toBeUndefined();
  });

  it('probes a gateway in front of a validating backend once, and the probed window beats the claim', async () => {
    const fetch = gateway();
    const limits = await resolveLimits({
      model: 'glm5.2',
      baseUrl: 'http://litellm:4000/v1',
      fetch,
      cache: false,
    });
    expect(limits).toMatchObject({
      contextLength: 21_000,
      outputCap: 9_600,
      source: { contextLength: 'probed', outputCap: 'claimed:/model/info' },
      probe: { result: 'stated', contextLength: 21_000, status: 400 },
      discovery: { server: 'litellm', claimed: true, backend: 'hosted_vllm' },
    });
    expect(fetch.probes).toEqual([
      expect.objectContaining({ model: 'glm5.2', max_tokens: 1_000_000_000, stream: true }),
    ]);
    expect(limits.notices?.[0]).toMatchObject({ kind: 'limit_overridden', value: 21_000, source: 'probed' });
    // A window the provider stated, or a hard one, leaves nothing for the probe to settle.
    await resolveLimits({
      model: 'glm5.2',
      baseUrl: 'http://litellm:4000/v1',
      fetch,
      cache: false,
      learned: { 'glm5.2': { contextLength: 21_000 } },
    });
    await resolveLimits({
      model: 'glm5.2',
      baseUrl: 'http://litellm:4000',
      fetch,
      cache: false,
      probe: false,
    });
    expect(fetch.probes).toHaveLength(1);
  });

  it('reports an unreachable server as an error of its source, with the figures of the others', async () => {
    const refused = (async () => {
      throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    }) as typeof fetch;
    const limits = await resolveLimits({
      model: 'gpt-4o',
      baseUrl: 'http://127.0.0.1:9/v1',
      fetch: refused,
      cache: false,
    });
    expect(limits).toMatchObject({
      contextLength: 128_000,
      source: { contextLength: 'catalog' },
      errors: [{ source: 'discovery', code: 'unreachable', baseUrl: 'http://127.0.0.1:9' }],
    });
    expect(limits.errors?.[0]?.message).toContain('ECONNREFUSED');
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
    await expect(resolveLimits({ model: 'gpt-4o', hard: { outputCap: 1.5 } })).rejects.toThrow(
      /hard.outputCap must be a positive integer/,
    );
    await expect(resolveLimits({ model: ' ' })).rejects.toThrow(/non-empty model id/);
  });

  it('always takes the figure of the strongest source that states one', async () => {
    const figure = fc.option(fc.integer({ min: 1_024, max: 1_000_000 }), { nil: undefined });
    await fc.assert(
      fc.asyncProperty(figure, figure, figure, async (hard, stated, config) => {
        const limits = await resolveLimits({
          model: 'my-finetune-v3',
          ...(hard === undefined ? {} : { hard: { contextLength: hard } }),
          ...(stated === undefined ? {} : { learned: { 'my-finetune-v3': { contextLength: stated } } }),
          ...(config === undefined ? {} : { config: { contextLength: config } }),
        });
        expect(limits.contextLength).toBe(hard ?? stated ?? config ?? FALLBACK_CONTEXT_LENGTH);
        const ranks = limits.figures.contextLength.map((entry) => limitSourceRank(entry.source));
        expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
        expect(limitSourceRank(limits.source.contextLength)).toBeLessThan(LIMIT_SOURCE_ORDER.length);
      }),
      { numRuns: 60 },
    );
  });
});
