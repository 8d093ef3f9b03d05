import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { type Emulator, type EmulatorOptions, startEmulator } from '../../src/emulator/index.js';

const running: Emulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
});

async function start(options: EmulatorOptions): Promise<Emulator> {
  const emulator = await startEmulator(options);
  running.push(emulator);
  return emulator;
}

async function getJson(
  url: string,
  init?: RequestInit,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(url, init);
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('discovery endpoints', () => {
  it('vLLM reports max_model_len on /v1/models', async () => {
    const emulator = await start({
      profile: 'vllm',
      contextLength: 12_288,
      model: 'Qwen/Qwen2.5-Coder-7B-Instruct',
    });
    const client = new OpenAI({ baseURL: `${emulator.url}/v1`, apiKey: 'k' });
    const models = await client.models.list();
    expect(models.data).toHaveLength(1);
    expect(models.data[0]).toMatchObject({
      id: 'Qwen/Qwen2.5-Coder-7B-Instruct',
      object: 'model',
      owned_by: 'vllm',
      max_model_len: 12_288,
    });
  });

  it('llama.cpp reports n_ctx on /props, at the top level and in default_generation_settings', async () => {
    const emulator = await start({ profile: 'llamacpp', contextLength: 2_048 });
    const { json } = await getJson(`${emulator.url}/props`);
    expect(json.n_ctx).toBe(2_048);
    expect(json.default_generation_settings).toMatchObject({ n_ctx: 2_048 });
    const models = await getJson(`${emulator.url}/v1/models`);
    expect(models.json).toMatchObject({
      object: 'list',
      data: [{ owned_by: 'llamacpp', meta: { n_ctx_train: 32_768 } }],
    });
  });

  it('LiteLLM advertises max_input_tokens / max_output_tokens on /model/info and /v1/model/info', async () => {
    const emulator = await start({ profile: 'litellm-vllm', scale: 0.1 });
    for (const path of ['/model/info', '/v1/model/info']) {
      const { json } = await getJson(`${emulator.url}${path}`);
      expect(json).toMatchObject({
        data: [
          {
            model_name: 'glm5.2',
            model_info: {
              max_input_tokens: 9_600,
              max_output_tokens: 9_600,
              litellm_provider: 'hosted_vllm',
            },
          },
        ],
      });
    }
    const unscaled = await start({ profile: 'litellm-vllm' });
    const { json } = await getJson(`${unscaled.url}/model/info`);
    expect(json).toMatchObject({
      data: [{ model_info: { max_input_tokens: 96_000, max_output_tokens: 96_000 } }],
    });
    expect((await getJson(`${emulator.url}/v1/models`)).json).toMatchObject({
      object: 'list',
      data: [{ id: 'glm5.2' }],
    });
  });

  it('Ollama reports the trained context in model_info and num_ctx in parameters on POST /api/show', async () => {
    const emulator = await start({ profile: 'ollama' });
    const { status, json } = await getJson(`${emulator.url}/api/show`, {
      method: 'POST',
      body: JSON.stringify({ model: 'qwen2.5:7b' }),
    });
    expect(status).toBe(200);
    expect(json.model_info).toMatchObject({
      'general.architecture': 'qwen2',
      'qwen2.context_length': 32_768,
    });
    expect(json.parameters).toMatch(/^num_ctx\s+4096$/m);
    const tags = await getJson(`${emulator.url}/api/tags`);
    expect(tags.json).toMatchObject({ models: [{ name: 'qwen2.5:7b', details: { family: 'qwen2' } }] });
    const missing = await getJson(`${emulator.url}/api/show`, {
      method: 'POST',
      body: JSON.stringify({ model: 'llama3' }),
    });
    expect(missing).toEqual({ status: 404, json: { error: "model 'llama3' not found" } });
  });

  it('OpenAI, Anthropic and LocalAI list their model on /v1/models', async () => {
    const openai = await start({ profile: 'openai' });
    expect(
      (await new OpenAI({ baseURL: `${openai.url}/v1`, apiKey: 'k' }).models.list()).data.map(
        (model) => model.id,
      ),
    ).toEqual(['gpt-4o']);
    const anthropic = await start({ profile: 'anthropic' });
    expect(
      (await new Anthropic({ baseURL: anthropic.url, apiKey: 'k' }).models.list()).data.map(
        (model) => model.id,
      ),
    ).toEqual(['claude-sonnet-4-5']);
    const localai = await start({ profile: 'localai', model: 'qwen2.5-7b' });
    expect((await getJson(`${localai.url}/v1/models`)).json).toEqual({
      object: 'list',
      data: [{ id: 'qwen2.5-7b', object: 'model' }],
    });
  });
});
