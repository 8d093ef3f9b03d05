/**
 * Upstream overflows through the proxy: classified, recovered once (lower max_tokens, lower the
 * output cap, refit to the stated window), and what was learned kept for the next request; what
 * cannot be fitted is a 400 context_length_exceeded with Spillway's explanation.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { SUMMARY_REQUEST_MARKER } from '../../src/core/index.js';
import {
  type Emulator,
  type EmulatorOptions,
  fakeToolResult,
  startEmulator,
} from '../../src/emulator/index.js';
import { type ProxyOptions, startProxy } from '../../src/proxy/index.js';
import { parseProxyConfig } from '../../src/proxy/proxy-config.js';
import { toolHistory } from './tool-history.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

async function setup(emulatorOptions: EmulatorOptions, proxyOptions: Partial<ProxyOptions> = {}) {
  const emulator = await startEmulator(emulatorOptions);
  open.push(emulator);
  const proxy = await startProxy({ upstream: emulator.url, port: 0, ...proxyOptions });
  open.push(proxy);
  const client = new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: 'sk-recovery', maxRetries: 0 });
  return { emulator, proxy, client };
}

/** Whether a chat body is a compaction's summary request. */
function isSummaryRequest(body: unknown): boolean {
  return JSON.stringify(body).includes(SUMMARY_REQUEST_MARKER);
}

const chats = (emulator: Emulator) =>
  emulator.requests.filter((record) => record.path === '/v1/chat/completions');

describe('upstream overflow recovery', () => {
  it('learns the window a gateway does not advertise, compacts with the upstream as summarizer, and reuses the summary', async () => {
    // LiteLLM advertises 9,600 input tokens; the vLLM behind it enforces 3,000, less than even the
    // compressed history needs. Without the probe, the first rejection is how the proxy learns it.
    const { emulator, client } = await setup(
      { profile: 'litellm-vllm', scale: 0.1, contextLength: 3_000 },
      { config: parseProxyConfig({ probe_limits: false }) },
    );
    const messages = toolHistory(12, 700);
    const first = await client.chat.completions
      .create({ model: 'glm5.2', messages, max_tokens: 2_000 })
      .withResponse();
    expect(first.data.choices[0]?.message).toBeDefined();
    expect(first.response.headers.get('x-spillway-recovery')).toMatch(/^(budget|context):compacted$/);
    expect(first.response.headers.get('x-spillway-window')).toBe('3000');
    const [rejected, ...rest] = chats(emulator);
    const retried = rest.at(-1);
    const summaries = rest.slice(0, -1);
    expect(rejected?.status).toBe(400);
    expect(summaries.length).toBeGreaterThan(0);
    for (const summary of summaries) {
      expect(isSummaryRequest(summary.body)).toBe(true);
      expect(summary.status).toBe(200);
    }
    expect(retried?.status).toBe(200);
    expect(isSummaryRequest(retried?.body)).toBe(false);
    const afterFirst = chats(emulator).length;

    // The same history again (a client's retry, a regenerate) is fitted to the learned window
    // directly, with the stored summary in place of the same messages: no overflow, no summary
    // request, the same messages byte for byte.
    const again = await client.chat.completions
      .create({ model: 'glm5.2', messages, max_tokens: 2_000 })
      .withResponse();
    expect(again.response.headers.get('x-spillway-recovery')).toBe('none');
    expect(again.response.headers.get('x-spillway-window')).toBe('3000');
    expect(chats(emulator)).toHaveLength(afterFirst + 1);
    const repeated = chats(emulator).at(-1);
    expect(repeated?.status).toBe(200);
    const messagesOf = (body: unknown) => JSON.stringify((body as { messages: unknown }).messages);
    expect(messagesOf(repeated?.body)).toBe(messagesOf(retried?.body));
    expect(messagesOf(repeated?.body)).toContain('[compacted #');
  });

  it('lowers max_tokens for a budget overflow and drops no turn for it', async () => {
    // The config claims 16,000 tokens; the server enforces 8,000 on prompt + max_tokens.
    const config = parseProxyConfig({ models: { acme: { context_length: 16_000 } } });
    const { emulator, client, proxy } = await setup(
      { profile: 'openai', model: 'acme', contextLength: 8_000 },
      { config },
    );
    const messages = toolHistory(4, 1_300);
    const { response } = await client.chat.completions
      .create({ model: 'acme', messages, max_tokens: 6_000 })
      .withResponse();
    expect(response.headers.get('x-spillway-recovery')).toBe('budget:lower_max_tokens');
    expect(response.headers.get('x-spillway-pruned-turns')).toBe('0');
    const [rejected, retried] = chats(emulator);
    expect(rejected?.overflow).toBe('budget');
    expect(retried?.status).toBe(200);
    expect(retried?.maxTokens).toBeLessThan(6_000);
    const messagesOf = (body: unknown) => (body as { messages: unknown[] }).messages;
    expect(messagesOf(retried?.body)).toHaveLength(messagesOf(rejected?.body).length);
    const metrics = await (await fetch(`${proxy.url}/metrics`)).text();
    expect(metrics).toContain('spillway_proxy_recoveries_total{kind="budget",action="lower_max_tokens"} 1');
  });

  it('lowers max_tokens to a stated output cap and remembers the cap for the next request', async () => {
    const { emulator, client } = await setup({ profile: 'openai', model: 'acme', outputCap: 4_096 });
    const messages = toolHistory(1, 200);
    const first = await client.chat.completions
      .create({ model: 'acme', messages, max_tokens: 8_000 })
      .withResponse();
    expect(first.response.headers.get('x-spillway-recovery')).toBe('output_cap:lower_output_cap');
    expect(chats(emulator).map((record) => [record.status, record.maxTokens])).toEqual([
      [400, expect.any(Number)],
      [200, 4_096],
    ]);
    const second = await client.chat.completions
      .create({ model: 'acme', messages, max_tokens: 8_000 })
      .withResponse();
    expect(second.response.headers.get('x-spillway-recovery')).toBe('none');
    expect(chats(emulator).at(-1)).toMatchObject({ status: 200, maxTokens: 4_096 });
  });

  it('answers 400 context_length_exceeded, explained, when even the smallest request is over the stated window', async () => {
    const { emulator, client } = await setup(
      { profile: 'litellm-vllm', scale: 0.1, contextLength: 2_000 },
      { config: parseProxyConfig({ probe_limits: false }) },
    );
    const huge = fakeToolResult({ name: 'read_file', args: { path: 'src/big.ts' }, seed: 1, size: 2_600 });
    const error = await client.chat.completions
      .create({
        model: 'glm5.2',
        messages: [{ role: 'user', content: `Review this file:\n${huge}` }],
        max_tokens: 500,
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const bad = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(bad.status).toBe(400);
    expect(bad.code).toBe('context_length_exceeded');
    expect(bad.param).toBe('messages');
    expect(bad.type).toBe('invalid_request_error');
    expect(bad.message).toMatch(/Spillway: .*2000-token window/);
    expect(bad.message).toMatch(/The upstream said: .*context length is only 2000 tokens/);
    expect(chats(emulator)).toHaveLength(1);
  });

  it('answers 400 context_length_exceeded without sending the request when nothing fits the known window', async () => {
    const { emulator, client } = await setup({ profile: 'litellm-vllm', scale: 0.1 });
    const huge = fakeToolResult({ name: 'read_file', args: { path: 'src/big.ts' }, seed: 2, size: 60_000 });
    const error = await client.chat.completions
      .create({ model: 'glm5.2', messages: [{ role: 'user', content: huge }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const bad = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(bad.code).toBe('context_length_exceeded');
    // The window is the one vLLM stated in answer to the probe, not LiteLLM's 9,600.
    expect(bad.message).toMatch(
      /^400 Spillway: the smallest request Spillway can build .* 21000-token window/,
    );
    expect(chats(emulator)).toMatchObject([{ status: 400, maxTokens: 1_000_000_000 }]);
  });
});
