/**
 * The proxy keeps each conversation's driver state in its store, so a conversation's next request
 * is counted from the provider's own figure for the previous one: the usage the first reply
 * reported, plus an estimate of only what was appended. The emulated vLLM counts with the real
 * o200k tokenizer and its chat template, which makes the comparison exact.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Emulator, fakeToolResult, startEmulator } from '../../src/emulator/index.js';
import { type RunningProxy, startProxy } from '../../src/proxy/index.js';
import { parseProxyConfig } from '../../src/proxy/proxy-config.js';

const MODEL = 'gpt-4o';
const closing: Array<Emulator | RunningProxy> = [];
afterEach(async () => {
  for (const item of closing.splice(0).reverse()) await item.close();
});

async function post(proxy: RunningProxy, body: unknown) {
  const response = await fetch(`${proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-anchor-test' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return {
    estimate: Number(response.headers.get('x-spillway-estimate')),
    json: (await response.json()) as never,
  };
}

describe('a conversation through the proxy', () => {
  it.each(['memory', 'sqlite'])(
    'counts its second request from the first reply’s usage, within a tenth of the server’s count, with the %s store',
    async (store) => {
      const server = await startEmulator({
        profile: 'vllm',
        model: MODEL,
        contextLength: 128_000,
        script: {
          selectBy: 'request',
          after: 'repeat-last',
          replies: [{ text: 'Noted; here is what I found.' }],
        },
      });
      closing.push(server);
      const proxy = await startProxy({
        upstream: server.url,
        port: 0,
        store:
          store === 'memory'
            ? 'memory'
            : `sqlite:${join(mkdtempSync(join(tmpdir(), 'spillway-anchor-')), 'proxy.db')}`,
        config: parseProxyConfig({ context_length: 128_000 }),
      });
      closing.push(proxy);
      // Machine text (a build log, source) is where a character estimate errs most.
      const log = fakeToolResult({ name: 'run', args: { command: 'npm test' }, seed: 4, size: 6_000 });
      const first = [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'user', content: `Why does the build fail?\n${log}` },
      ];
      const one = await post(proxy, { model: MODEL, messages: first });
      const reply = (one.json as { choices: { message: { role: string; content: string } }[] }).choices[0]
        ?.message as { role: string; content: string };
      const second = [...first, reply, { role: 'user', content: 'Which file should I open first?' }];
      const two = await post(proxy, { model: MODEL, messages: second });

      const counted = server.requests
        .filter((record) => record.path === '/v1/chat/completions')
        .map((record) => record.promptTokens ?? 0);
      expect(counted).toHaveLength(2);
      const [realOne, realTwo] = counted as [number, number];
      // Cold, the first request is only estimated, and the estimate errs high.
      expect(one.estimate).toBeGreaterThan(realOne);
      // Anchored, the second is the reported count plus the appended messages' estimate.
      expect(two.estimate).toBeGreaterThanOrEqual(realTwo);
      expect(Math.abs(two.estimate - realTwo) / realTwo).toBeLessThanOrEqual(0.1);
    },
  );
});
