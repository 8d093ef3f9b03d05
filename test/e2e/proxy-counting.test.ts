/**
 * The counts the proxy takes besides its estimate: a request only the estimate's margin calls too
 * large is counted on the upstream's own counting endpoint (vLLM's `/tokenize`) and goes out whole,
 * anchored on that count; and the counting routes (`/v1/responses/input_tokens`,
 * `/v1/messages/count_tokens`) answer the upstream's own count of the fitted request, from the
 * upstream's counting endpoint when it lacks the route, else Spillway's count, saying which.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { fromGemini, fromOpenAIChat, toAnthropic, toOpenAIChat } from '../../src/core/index.js';
import { fakeToolResult, startEmulator } from '../../src/emulator/index.js';
import { startProxy } from '../../src/proxy/index.js';
import { exactCounterInfo } from '../../src/tokenizers/index.js';
import { toolHistory } from './tool-history.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

/** About 11,000 real tokens in a 16,384-token window: the cold estimate is over the budget, the count is not. */
async function send(model: string) {
  const emulator = await startEmulator({ profile: 'vllm', port: 0, model, contextLength: 16_384 });
  open.push(emulator);
  const proxy = await startProxy({ upstream: emulator.url, port: 0 });
  open.push(proxy);
  const client = new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: 'sk-count', maxRetries: 0 });
  const messages = toolHistory(10, 1_050);
  const { response } = await client.chat.completions
    .create({ model, messages, max_tokens: 1_000 })
    .withResponse();
  return { emulator, response, messages };
}

describe('counting through the proxy', () => {
  it("settles a request the estimate alone doubts on vLLM's /tokenize, and sends it whole", async () => {
    const { emulator, response, messages } = await send('acme');
    const counted = emulator.requests.filter((record) => record.path === '/tokenize');
    expect(counted.length).toBeGreaterThan(0);
    expect(response.headers.get('x-spillway-count')).toBe('anchored');
    expect(response.headers.get('x-spillway-verdict')).toBe('fits');
    expect(response.headers.get('x-spillway-cut')).toBe('none');
    const chat = emulator.requests.find((record) => record.path === '/v1/chat/completions');
    expect((chat?.body as { messages?: unknown[] } | undefined)?.messages).toHaveLength(messages.length);
  });

  it("does not take an OpenAI model's tokenizer for the upstream's count before they agree", async () => {
    // gpt-tokenizer is installed and gpt-4o names o200k, but nothing has compared it with this
    // upstream yet: the request the estimate alone doubts is settled on the upstream's /tokenize.
    const { emulator, response } = await send('gpt-4o');
    expect(response.headers.get('x-spillway-count')).toBe('anchored');
    expect(response.headers.get('x-spillway-cut')).toBe('none');
    expect(emulator.requests.some((record) => record.path === '/tokenize')).toBe(true);
  });

  it('loads no tokenizer in front of a server that counts for itself', async () => {
    const model = 'Qwen/Qwen2.5-7B-Instruct';
    expect(exactCounterInfo(model)).toMatchObject({ family: 'qwen2', status: 'not_loaded' });
    const { emulator, response } = await send(model);
    expect(response.headers.get('x-spillway-count')).toBe('anchored');
    expect(emulator.requests.some((record) => record.path === '/tokenize')).toBe(true);
    expect(exactCounterInfo(model)?.status).toBe('not_loaded');
  });
});

/** A Codex-shaped Responses input: the task and `turns` shell calls with tool outputs of about `size` tokens. */
function responsesInput(turns: number, size: number): unknown[] {
  const items: unknown[] = [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Read every file and sum up.' }] },
  ];
  for (let turn = 0; turn < turns; turn++) {
    const args = JSON.stringify({ path: `f${turn}` });
    items.push({ type: 'function_call', call_id: `call_${turn}`, name: 'read_file', arguments: args });
    items.push({
      type: 'function_call_output',
      call_id: `call_${turn}`,
      output: fakeToolResult({ name: 'read_file', args: { path: `f${turn}` }, seed: turn, size }),
    });
  }
  return items;
}

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe("the counting routes answer the upstream's own count of the fitted request", () => {
  it("answers /v1/responses/input_tokens with vLLM's /tokenize count, the count a send reports", async () => {
    const emulator = await startEmulator({ profile: 'vllm', port: 0, model: 'qwen', contextLength: 32_768 });
    open.push(emulator);
    const proxy = await startProxy({ upstream: emulator.url, port: 0 });
    open.push(proxy);
    const body = { model: 'qwen', instructions: 'You are a coding agent.', input: responsesInput(5, 900) };
    const answer = await post(`${proxy.url}/v1/responses/input_tokens`, body);
    const counted = (await answer.json()) as { object: string; input_tokens: number };
    expect(answer.status).toBe(200);
    expect(counted.object).toBe('response.input_tokens');
    expect(answer.headers.get('x-spillway-count')).toBe('upstream');
    expect(answer.headers.get('x-spillway-count-endpoint')).toBe('/tokenize');
    // vLLM has no /v1/responses/input_tokens: asked once, then its /tokenize.
    expect(emulator.requests.filter((record) => record.path === '/v1/responses/input_tokens')).toHaveLength(
      1,
    );
    expect(emulator.requests.some((record) => record.path === '/tokenize')).toBe(true);
    // The same request sent: the upstream reports the prompt tokens the count said.
    const sent = await post(`${proxy.url}/v1/responses`, body);
    expect(sent.status).toBe(200);
    const record = emulator.requests.filter((entry) => entry.path === '/v1/responses').at(-1);
    expect(record?.promptTokens).toBe(counted.input_tokens);
    // …and not Spillway's estimate of it.
    expect(Number(answer.headers.get('x-spillway-estimate'))).not.toBe(counted.input_tokens);
    const again = await post(`${proxy.url}/v1/responses/input_tokens`, body);
    expect(((await again.json()) as { input_tokens: number }).input_tokens).toBe(counted.input_tokens);
    expect(emulator.requests.filter((entry) => entry.path === '/v1/responses/input_tokens')).toHaveLength(1);
  });

  it("answers Gemini's countTokens with vLLM's /tokenize count when the upstream has no countTokens", async () => {
    const emulator = await startEmulator({ profile: 'vllm', port: 0, model: 'qwen', contextLength: 32_768 });
    open.push(emulator);
    const proxy = await startProxy({ upstream: emulator.url, port: 0 });
    open.push(proxy);
    const body = { contents: [{ role: 'user', parts: [{ text: 'Count the files in src.' }] }] };
    const answer = await post(`${proxy.url}/v1beta/models/qwen:countTokens`, body);
    const counted = (await answer.json()) as { totalTokens: number };
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-spillway-count')).toBe('upstream');
    expect(answer.headers.get('x-spillway-count-endpoint')).toBe('/tokenize');
    const chat = fromGemini({ model: 'qwen', ...body });
    const direct = await post(`${emulator.url}/tokenize`, toOpenAIChat(chat));
    expect(counted.totalTokens).toBe(((await direct.json()) as { count: number }).count);
  });

  it("answers /v1/messages/count_tokens with llama.cpp's template and tokenizer, as its chat reports", async () => {
    const emulator = await startEmulator({
      profile: 'llamacpp',
      port: 0,
      model: 'qwen',
      contextLength: 16_384,
    });
    open.push(emulator);
    const proxy = await startProxy({ upstream: emulator.url, port: 0 });
    open.push(proxy);
    const messages = toolHistory(4, 800);
    const anthropic = toAnthropic(fromOpenAIChat({ model: 'qwen', messages, max_tokens: 512 }));
    const answer = await post(`${proxy.url}/v1/messages/count_tokens`, anthropic);
    const counted = (await answer.json()) as { input_tokens: number };
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-spillway-count')).toBe('upstream');
    expect(answer.headers.get('x-spillway-count-endpoint')).toBe('/tokenize');
    expect(emulator.requests.map((record) => record.path)).toContain('/apply-template');
    const direct = await post(`${emulator.url}/v1/chat/completions`, {
      model: 'qwen',
      messages,
      max_tokens: 16,
    });
    const usage = ((await direct.json()) as { usage: { prompt_tokens: number } }).usage;
    expect(counted.input_tokens).toBe(usage.prompt_tokens);
  });

  it('answers with its own count where the upstream has no counting endpoint, and says which', async () => {
    const emulator = await startEmulator({
      profile: 'ollama',
      port: 0,
      model: 'qwen',
      contextLength: 32_768,
    });
    open.push(emulator);
    const proxy = await startProxy({ upstream: emulator.url, port: 0 });
    open.push(proxy);
    const anthropic = toAnthropic(
      fromOpenAIChat({ model: 'qwen', messages: toolHistory(2, 300), max_tokens: 256 }),
    );
    const answer = await post(`${proxy.url}/v1/messages/count_tokens`, anthropic);
    const counted = (await answer.json()) as { input_tokens: number };
    expect(answer.status).toBe(200);
    expect(['estimate', 'calibrated']).toContain(answer.headers.get('x-spillway-count'));
    expect(answer.headers.get('x-spillway-count-endpoint')).toBeNull();
    expect(counted.input_tokens).toBe(Number(answer.headers.get('x-spillway-estimate')));
  });

  it("anchors its own count on the upstream's reported usage once the conversation has been sent", async () => {
    // LiteLLM in front of vLLM: the Responses API, no counting endpoint of its own.
    const emulator = await startEmulator({
      profile: 'litellm-vllm',
      port: 0,
      model: 'qwen',
      contextLength: 32_768,
    });
    open.push(emulator);
    const proxy = await startProxy({ upstream: emulator.url, port: 0 });
    open.push(proxy);
    const first = { model: 'qwen', instructions: 'You are a coding agent.', input: responsesInput(2, 300) };
    const reply = (await (await post(`${proxy.url}/v1/responses`, first)).json()) as {
      output: unknown[];
      usage: { input_tokens: number };
    };
    const next = {
      ...first,
      input: [
        ...first.input,
        ...reply.output,
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Now fix it.' }] },
      ],
    };
    const answer = await post(`${proxy.url}/v1/responses/input_tokens`, next);
    const counted = (await answer.json()) as { input_tokens: number };
    expect(answer.headers.get('x-spillway-count')).toBe('anchored');
    expect(counted.input_tokens).toBeGreaterThan(reply.usage.input_tokens);
  });
});
