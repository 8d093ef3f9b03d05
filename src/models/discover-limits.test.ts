import { describe, expect, it } from 'vitest';
import { discoverLimits, discoverServer, serverRoot } from './discover-limits.js';
import { DiscoveryCache } from './discovery-cache.js';

type Routes = Record<string, (init?: RequestInit) => Response | Promise<Response>>;

/** A fetch that answers from a route table and records every call. */
function fakeFetch(routes: Routes): typeof fetch & { calls: string[] } {
  const calls: string[] = [];
  const implementation = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input));
    calls.push(`${init?.method ?? 'GET'} ${url.pathname}`);
    // Like the real fetch, an aborted signal rejects at once.
    if (init?.signal?.aborted) throw init.signal.reason;
    const route = routes[`${init?.method ?? 'GET'} ${url.pathname}`];
    if (!route) return new Response('not found', { status: 404 });
    return route(init);
  };
  return Object.assign(implementation as typeof fetch, { calls });
}

const json = (body: unknown) => () => Response.json(body);

describe('serverRoot', () => {
  it('drops a trailing /v1 and slashes, and rejects what is not an http URL', () => {
    expect(serverRoot('http://localhost:11434/v1/')).toBe('http://localhost:11434');
    expect(serverRoot('https://proxy.example/litellm/v1')).toBe('https://proxy.example/litellm');
    expect(() => serverRoot('localhost:8000')).toThrow(/not a URL|must be http/);
    expect(() => serverRoot('ftp://host')).toThrow(/must be http/);
  });
});

describe('discoverLimits', () => {
  it('prefers a runtime setting over a model list and a gateway’s advertisement', async () => {
    const fetch = fakeFetch({
      'GET /props': json({
        n_ctx: 16_384,
        default_generation_settings: { n_ctx: 4_096, params: { n_predict: 512 } },
      }),
      'GET /v1/models': json({ data: [{ id: 'm', max_model_len: 32_768 }] }),
      'GET /model/info': json({ data: [{ model_name: 'm', model_info: { max_input_tokens: 96_000 } }] }),
    });
    const found = await discoverLimits({ baseUrl: 'http://server/v1', model: 'm', fetch, cache: false });
    // The per-slot n_ctx is what one request gets.
    expect(found).toEqual({ server: 'llamacpp', endpoint: '/props', contextLength: 4_096, outputCap: 512 });
  });

  it('reads Ollama’s num_ctx in force, falls back to its default, and keeps the trained length apart', async () => {
    const show = (parameters: string) =>
      fakeFetch({
        'POST /api/show': json({
          parameters,
          model_info: { 'general.architecture': 'llama', 'llama.context_length': 131_072 },
        }),
      });
    const set = await discoverLimits({
      baseUrl: 'http://ollama',
      model: 'llama3.1',
      fetch: show('num_ctx                        16384\nnum_predict 256'),
      cache: false,
    });
    expect(set).toEqual({
      server: 'ollama',
      endpoint: '/api/show',
      contextLength: 16_384,
      outputCap: 256,
      trainedContextLength: 131_072,
      model: 'llama3.1',
    });
    const unset = await discoverLimits({
      baseUrl: 'http://ollama',
      model: 'llama3.1',
      fetch: show('stop "x"'),
      cache: false,
    });
    expect(unset?.contextLength).toBe(4_096);
  });

  it('matches the model in lists, and takes the only entry when the id differs', async () => {
    const fetch = fakeFetch({
      'GET /v1/models': json({
        data: [
          { id: 'a', max_model_len: 8_192 },
          { id: 'Qwen/Qwen2.5-7B', root: 'qwen-root', max_model_len: 32_768 },
        ],
      }),
      'GET /api/v0/models': json({
        data: [{ id: 'other', state: 'not-loaded', max_context_length: 131_072 }],
      }),
    });
    expect(
      (await discoverLimits({ baseUrl: 'http://s', model: 'qwen/qwen2.5-7b', fetch, cache: false }))
        ?.contextLength,
    ).toBe(131_072);
    const vllmOnly = fakeFetch({
      'GET /v1/models': json({
        data: [
          { id: 'a', max_model_len: 8_192 },
          { id: 'b', max_model_len: 4_096 },
        ],
      }),
    });
    expect(
      await discoverLimits({ baseUrl: 'http://s', model: 'b', fetch: vllmOnly, cache: false }),
    ).toMatchObject({
      contextLength: 4_096,
    });
    expect(
      await discoverLimits({ baseUrl: 'http://s', model: 'c', fetch: vllmOnly, cache: false }),
    ).toBeUndefined();
  });

  it('finds nothing, and throws nothing, for slow, failing or non-JSON servers that answer something', async () => {
    const slow = fakeFetch({
      'GET /props': (init) =>
        new Promise<Response>((_, reject) =>
          init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
        ),
      'GET /v1/models': () => new Response('<html>', { status: 200 }),
      'GET /model/info': () => new Response('{"error":"unauthorized"}', { status: 401 }),
    });
    expect(
      await discoverServer({ baseUrl: 'http://s', model: 'm', fetch: slow, timeoutMs: 50, cache: false }),
    ).toEqual({});
  });

  it('reports a server no endpoint of which can be reached, or that never answers, as an error', async () => {
    const refused = (async () => {
      throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    }) as typeof fetch;
    const down = await discoverServer({ baseUrl: 'http://s:9/v1', model: 'm', fetch: refused, cache: false });
    expect(down).toEqual({
      error: { code: 'unreachable', baseUrl: 'http://s:9', message: expect.stringContaining('ECONNREFUSED') },
    });
    expect(
      await discoverLimits({ baseUrl: 'http://s', model: 'm', fetch: refused, cache: false }),
    ).toBeUndefined();
    const silent = ((_: unknown, init?: RequestInit) =>
      new Promise<Response>((_, reject) =>
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
      )) as typeof fetch;
    expect(
      await discoverServer({ baseUrl: 'http://s', model: 'm', fetch: silent, timeoutMs: 30, cache: false }),
    ).toMatchObject({ error: { code: 'timeout', message: expect.stringContaining('30 ms') } });
  });

  it('reads the loaded Ollama runner’s context length from /api/ps over num_ctx, with the trained length', async () => {
    const fetch = fakeFetch({
      'GET /api/ps': json({
        models: [{ name: 'qwen2.5:7b', model: 'qwen2.5:7b', size_vram: 1, context_length: 8_192 }],
      }),
      'POST /api/show': json({
        parameters: 'stop "x"',
        model_info: { 'general.architecture': 'qwen2', 'qwen2.context_length': 32_768 },
      }),
    });
    expect(
      await discoverLimits({ baseUrl: 'http://ollama', model: 'qwen2.5:7b', fetch, cache: false }),
    ).toEqual({
      server: 'ollama',
      endpoint: '/api/ps',
      contextLength: 8_192,
      trainedContextLength: 32_768,
      model: 'qwen2.5:7b',
    });
    const unloaded = fakeFetch({
      'GET /api/ps': json({ models: [] }),
      'POST /api/show': json({
        parameters: '',
        model_info: { 'general.architecture': 'qwen2', 'qwen2.context_length': 32_768 },
      }),
    });
    expect(
      await discoverLimits({ baseUrl: 'http://ollama', model: 'qwen2.5:7b', fetch: unloaded, cache: false }),
    ).toMatchObject({ endpoint: '/api/show', contextLength: 4_096, defaultAssumed: true });
  });

  it('reads TGI’s max_total_tokens, and marks LiteLLM’s figures as a claim with the backend behind it', async () => {
    const tgi = fakeFetch({
      'GET /info': json({
        model_id: 'mistralai/Mistral-7B-Instruct-v0.2',
        max_input_tokens: 4_095,
        max_total_tokens: 4_096,
      }),
    });
    expect(await discoverLimits({ baseUrl: 'http://tgi', model: 'tgi', fetch: tgi, cache: false })).toEqual({
      server: 'tgi',
      endpoint: '/info',
      contextLength: 4_096,
      model: 'mistralai/Mistral-7B-Instruct-v0.2',
    });
    const litellm = fakeFetch({
      'GET /model/info': json({
        data: [
          {
            model_name: 'glm5.2',
            litellm_params: { model: 'hosted_vllm/glm5.2' },
            model_info: { max_input_tokens: 96_000, max_output_tokens: 96_000 },
          },
        ],
      }),
    });
    expect(
      await discoverLimits({ baseUrl: 'http://litellm', model: 'glm5.2', fetch: litellm, cache: false }),
    ).toEqual({
      server: 'litellm',
      endpoint: '/model/info',
      claimed: true,
      backend: 'hosted_vllm',
      contextLength: 96_000,
      outputCap: 96_000,
      model: 'glm5.2',
    });
  });

  it('never probes hosted APIs', async () => {
    const fetch = fakeFetch({});
    expect(
      await discoverLimits({ baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o', fetch }),
    ).toBeUndefined();
    expect(fetch.calls).toEqual([]);
  });

  it('caches per base URL and model, misses included, until the entry expires', async () => {
    let now = 0;
    const cache = new DiscoveryCache({ ttlMs: 1_000, now: () => now });
    const fetch = fakeFetch({ 'GET /v1/models': json({ data: [{ id: 'm', max_model_len: 8_192 }] }) });
    const ask = (baseUrl: string, model = 'm') => discoverLimits({ baseUrl, model, fetch, cache });
    await Promise.all([ask('http://a/v1'), ask('http://a')]);
    const probesPerRun = fetch.calls.length;
    await ask('http://a/');
    expect(fetch.calls.length).toBe(probesPerRun);
    await ask('http://b');
    expect(fetch.calls.length).toBe(probesPerRun * 2);
    now = 1_000;
    await ask('http://a');
    expect(fetch.calls.length).toBe(probesPerRun * 3);
  });

  it('asks each server once for every model, and per model only about models its own list carries', async () => {
    const cache = new DiscoveryCache();
    const fetch = fakeFetch({ 'GET /v1/models': json({ data: [{ id: 'm', max_model_len: 8_192 }] }) });
    const names = Array.from({ length: 200 }, (_, index) => `client-chosen-${index}`);
    await Promise.all(names.map((model) => discoverLimits({ baseUrl: 'http://a', model, fetch, cache })));
    // Seven model-independent endpoints, once; no per-model probe for a model the list does not carry.
    expect(fetch.calls.filter((call) => call.startsWith('GET')).sort()).toEqual([
      'GET /api/ps',
      'GET /api/v0/models',
      'GET /info',
      'GET /model/info',
      'GET /props',
      'GET /v1/models',
      'GET /v1beta/models',
    ]);
    expect(fetch.calls.filter((call) => call === 'POST /api/show')).toEqual([]);
    await discoverLimits({ baseUrl: 'http://a', model: 'm', fetch, cache });
    expect(fetch.calls.filter((call) => call === 'POST /api/show')).toHaveLength(1);
  });

  it('keeps at most maxEntries results, the least recently used forgotten first', async () => {
    const cache = new DiscoveryCache({ maxEntries: 10 });
    const fetch = fakeFetch({});
    for (let index = 0; index < 100; index++)
      await discoverLimits({ baseUrl: 'http://a', model: `name-${index}`, fetch, cache });
    expect(cache.size).toBeLessThanOrEqual(10);
  });

  it('does not cache a run the caller aborted', async () => {
    const cache = new DiscoveryCache();
    const fetch = fakeFetch({
      'POST /api/show': json({
        parameters: '',
        model_info: { 'general.architecture': 'qwen2', 'qwen2.context_length': 32_768 },
      }),
    });
    const controller = new AbortController();
    controller.abort();
    expect(
      await discoverLimits({ baseUrl: 'http://a', model: 'm', fetch, cache, signal: controller.signal }),
    ).toBeUndefined();
    expect(await discoverLimits({ baseUrl: 'http://a', model: 'm', fetch, cache })).toMatchObject({
      server: 'ollama',
      contextLength: 4_096,
    });
  });
});
