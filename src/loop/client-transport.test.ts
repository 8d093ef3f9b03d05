import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConversationDriver, fromOpenAIChat } from '../core/index.js';
import { createOpenAICompatibleClient, ProviderError } from '../providers/index.js';
import { clientTransport } from './client-transport.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A server that answers its first request 500 with `body`, and every later one with a reply. */
async function rejectingOnce(body: string): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      hits += 1;
      if (hits === 1) {
        response.writeHead(500, { 'content-type': 'text/plain' });
        response.end(body);
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          choices: [{ message: { role: 'assistant', content: 'Done.' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 50, completion_tokens: 2 },
        }),
      );
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, hits: () => hits };
}

describe('clientTransport', () => {
  it('has the client classify an error answer with the driver’s own rows, so the HTTP retry never resends an overflow', async () => {
    const server = await rejectingOnce('acme says 12000 is the most');
    const errors: unknown[] = [];
    const client = createOpenAICompatibleClient({
      baseUrl: server.url,
      retry: { maxRetries: 2, sleep: async () => undefined },
    });
    const driver = new ConversationDriver({
      model: 'acme-7b',
      contextLength: 32_000,
      overflowPatterns: [{ name: 'acme', kind: 'context', pattern: /acme says (?<window>\d+) is the most/ }],
      onEvent: (event) => {
        if (event.type === 'overflow') errors.push(event);
      },
    });
    const result = await driver.send({
      request: fromOpenAIChat({ model: 'acme-7b', messages: [{ role: 'user', content: 'Hello.' }] }),
      transport: {
        async send(request, options) {
          const sent = await clientTransport({ client }).send(request, options);
          if (!sent.ok) errors.push(sent.error);
          return sent;
        },
      },
    });
    expect(result.ok).toBe(true);
    // The rejection, then the recovered request: the client's own retry did not send it again.
    expect(server.hits()).toBe(2);
    const rejected = errors.find((error) => ProviderError.isInstance(error)) as ProviderError;
    expect(rejected.overflow).toMatchObject({ kind: 'context', window: 12_000, pattern: 'acme' });
    expect(rejected.retryable).toBe(false);
    expect(driver.manager.windowFor('acme-7b')).toBe(12_000);
  });
});
