import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type Emulator, type EmulatorOptions, startEmulator } from '../../src/emulator/index.js';
import { DiscoveryCache, discoverLimits, probeLimits, resolveLimits } from '../../src/models/index.js';

const running: Emulator[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
  await Promise.all(
    servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
  );
});

async function start(options: EmulatorOptions): Promise<Emulator> {
  const emulator = await startEmulator({ port: 0, ...options });
  running.push(emulator);
  return emulator;
}

/** LM Studio's `GET /api/v0/models` (no emulator profile serves it), shaped as LM Studio 0.3 answers. */
async function lmStudio(): Promise<string> {
  const server = createServer((request, response) => {
    if (request.url !== '/api/v0/models') {
      response.writeHead(404).end('{"error":"Unexpected endpoint or method."}');
      return;
    }
    response.setHeader('content-type', 'application/json');
    response.end(
      JSON.stringify({
        object: 'list',
        data: [
          {
            id: 'qwen2.5-7b-instruct',
            object: 'model',
            type: 'llm',
            publisher: 'lmstudio-community',
            arch: 'qwen2',
            compatibility_type: 'gguf',
            quantization: 'Q4_K_M',
            state: 'loaded',
            max_context_length: 32_768,
            loaded_context_length: 8_192,
          },
          {
            id: 'text-embedding-nomic-embed-text-v1.5',
            object: 'model',
            type: 'embeddings',
            state: 'not-loaded',
            max_context_length: 2_048,
          },
        ],
      }),
    );
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

describe('discovery against the emulators', () => {
  it('vLLM: max_model_len from /v1/models', async () => {
    const emulator = await start({
      profile: 'vllm',
      contextLength: 12_288,
      model: 'Qwen/Qwen2.5-Coder-7B-Instruct',
    });
    const limits = await resolveLimits({
      model: 'Qwen/Qwen2.5-Coder-7B-Instruct',
      baseUrl: `${emulator.url}/v1`,
      cache: false,
    });
    expect(limits).toMatchObject({
      contextLength: 12_288,
      source: { contextLength: 'discovered:/v1/models', outputCap: 'fallback' },
      discovery: { server: 'vllm', endpoint: '/v1/models' },
    });
  });

  it('llama.cpp: n_ctx from /props (not n_ctx_train from /v1/models), n_predict as the output cap, the prompt alone checked', async () => {
    const emulator = await start({ profile: 'llamacpp', contextLength: 2_048, outputCap: 512 });
    const limits = await resolveLimits({
      model: 'qwen2.5-7b-instruct-q4_k_m.gguf',
      baseUrl: emulator.url,
      cache: false,
    });
    expect(limits).toMatchObject({
      contextLength: 2_048,
      outputCap: 512,
      source: { contextLength: 'discovered:/props', outputCap: 'discovered:/props' },
      windowCheck: 'prompt',
    });
  });

  it('LiteLLM over vLLM: what /model/info claims, and the window vLLM states in answer to the probe', async () => {
    const emulator = await start({ profile: 'litellm-vllm', scale: 0.1 });
    const baseUrl = `${emulator.url}/v1`;
    const claimed = await resolveLimits({ model: 'glm5.2', baseUrl, cache: false, probe: false });
    expect(claimed).toMatchObject({
      contextLength: 9_600,
      outputCap: 9_600,
      source: { contextLength: 'claimed:/model/info', outputCap: 'claimed:/model/info' },
      discovery: { server: 'litellm', claimed: true, backend: 'hosted_vllm' },
    });
    expect(emulator.requests.filter((request) => request.path === '/v1/chat/completions')).toEqual([]);
    const probed = await resolveLimits({ model: 'glm5.2', baseUrl, cache: false });
    expect(probed).toMatchObject({
      contextLength: 21_000,
      outputCap: 9_600,
      source: { contextLength: 'probed', outputCap: 'claimed:/model/info' },
      probe: { result: 'stated', status: 400, contextLength: 21_000 },
    });
    // One probe, rejected before anything was generated.
    expect(emulator.requests.filter((request) => request.path === '/v1/chat/completions')).toMatchObject([
      { status: 400, overflow: 'output_cap', stream: true, maxTokens: 1_000_000_000 },
    ]);
  });

  it('every vLLM release states its window in rejecting the probe, directly and through LiteLLM', async () => {
    for (const wording of ['v0', 'v1', 'v2', 'v3', 'sglang']) {
      const vllm = await start({ profile: 'vllm', wording, contextLength: 12_288 });
      const direct = await probeLimits({ baseUrl: `${vllm.url}/v1`, model: 'Qwen/Qwen2.5-7B-Instruct' });
      expect(direct).toMatchObject({ result: 'stated', status: 400, contextLength: 12_288 });
      const litellm = await start({ profile: 'litellm-vllm', wording, contextLength: 12_288 });
      const wrapped = await probeLimits({ baseUrl: litellm.url, model: 'glm5.2' });
      expect(wrapped).toMatchObject({ result: 'stated', status: 400, contextLength: 12_288 });
    }
  });

  it('a server that does not validate max_tokens starts a reply, and the probe cuts it at the first event', async () => {
    const llamacpp = await start({ profile: 'llamacpp' });
    expect(await probeLimits({ baseUrl: llamacpp.url, model: 'any' })).toEqual({
      result: 'accepted',
      status: 200,
    });
    const ollama = await start({ profile: 'ollama' });
    expect(await probeLimits({ baseUrl: `${ollama.url}/v1`, model: 'qwen2.5:7b' })).toEqual({
      result: 'accepted',
      status: 200,
    });
  });

  it('LiteLLM over vLLM: a window learned from the backend’s overflow error wins over the advertisement', async () => {
    const emulator = await start({ profile: 'litellm-vllm', scale: 0.1 });
    const limits = await resolveLimits({
      model: 'glm5.2',
      baseUrl: `${emulator.url}/v1`,
      learned: { 'glm5.2': { contextLength: 21_000 } },
      cache: false,
    });
    expect(limits.contextLength).toBe(21_000);
    expect(limits.source).toEqual({ contextLength: 'stated', outputCap: 'claimed:/model/info' });
    expect(limits.probe).toBeUndefined();
  });

  it('Ollama: the num_ctx in force from /api/show, not the trained context length', async () => {
    const emulator = await start({ profile: 'ollama', contextLength: 6_000 });
    const found = await discoverLimits({ baseUrl: `${emulator.url}/v1`, model: 'qwen2.5:7b', cache: false });
    expect(found).toEqual({
      server: 'ollama',
      endpoint: '/api/show',
      contextLength: 6_000,
      trainedContextLength: 32_768,
      model: 'qwen2.5:7b',
    });
    const show = emulator.requests.find((request) => request.path === '/api/show');
    expect(show).toMatchObject({ method: 'POST', status: 200, body: { model: 'qwen2.5:7b' } });
  });

  it('LM Studio: the loaded context length from /api/v0/models', async () => {
    const baseUrl = await lmStudio();
    expect(await resolveLimits({ model: 'qwen2.5-7b-instruct', baseUrl, cache: false })).toMatchObject({
      contextLength: 8_192,
      source: { contextLength: 'discovered:/api/v0/models' },
      discovery: { server: 'lmstudio', trainedContextLength: 32_768 },
    });
  });

  it('OpenAI, Anthropic and LocalAI report no limits: the catalog, else the fallback', async () => {
    const openai = await start({ profile: 'openai' });
    expect(await resolveLimits({ model: 'gpt-4o', baseUrl: `${openai.url}/v1`, cache: false })).toMatchObject(
      {
        contextLength: 128_000,
        outputCap: 16_384,
        source: { contextLength: 'catalog', outputCap: 'catalog' },
      },
    );
    const anthropic = await start({ profile: 'anthropic' });
    const claude = await resolveLimits({ model: 'claude-sonnet-4-5', baseUrl: anthropic.url, cache: false });
    expect(claude).toMatchObject({
      contextLength: 200_000,
      outputCap: 64_000,
      source: { contextLength: 'catalog' },
    });
    expect(claude.discovery).toBeUndefined();
    const localai = await start({ profile: 'localai', model: 'qwen2.5-7b' });
    expect(await resolveLimits({ model: 'qwen2.5-7b', baseUrl: `${localai.url}/v1`, cache: false })).toEqual({
      model: 'qwen2.5-7b',
      contextLength: 8_192,
      source: { contextLength: 'fallback', outputCap: 'fallback' },
      figures: { contextLength: [], outputCap: [] },
    });
  });

  it('an unreachable server is no discovery and an error of that source; the catalog still answers', async () => {
    const emulator = await start({ profile: 'vllm' });
    const url = emulator.url;
    await emulator.close();
    expect(
      await discoverLimits({ baseUrl: url, model: 'Qwen/Qwen2.5-7B-Instruct', cache: false }),
    ).toBeUndefined();
    const limits = await resolveLimits({ model: 'gpt-4o', baseUrl: url, cache: false });
    expect(limits.source.contextLength).toBe('catalog');
    expect(limits.errors).toEqual([
      {
        source: 'discovery',
        code: 'unreachable',
        baseUrl: url,
        message: expect.stringContaining('ECONNREFUSED'),
      },
    ]);
  });

  it('asks a server once per cache lifetime', async () => {
    const emulator = await start({ profile: 'vllm' });
    const cache = new DiscoveryCache();
    await resolveLimits({ model: 'Qwen/Qwen2.5-7B-Instruct', baseUrl: emulator.url, cache });
    const probes = emulator.requests.length;
    await resolveLimits({ model: 'Qwen/Qwen2.5-7B-Instruct', baseUrl: `${emulator.url}/v1`, cache });
    expect(emulator.requests.length).toBe(probes);
  });
});
