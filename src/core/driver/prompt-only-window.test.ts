import { describe, expect, it } from 'vitest';
import { charCounter, codingSession } from '../../../test/support/compaction-fixtures.js';
import type { ChatRequest, Message } from '../transcript/index.js';
import { ConversationDriver } from './conversation-driver.js';
import type { Transport, TransportResult } from './transport.js';

const MODEL = 'qwen2.5-7b-instruct-q4_k_m.gguf';
const N_CTX = 4_096;

function request(messages: Message[]): ChatRequest {
  return { format: 'openai', model: MODEL, messages, tools: [], extra: {}, maxTokens: 1_024 };
}

/**
 * llama.cpp's server: a prompt of n_ctx tokens or more is rejected with its figures
 * (`exceed_context_size_error`); max_tokens is never checked. The fitted estimate stands in for
 * the real count.
 */
function llamacppServer() {
  const sent: ChatRequest[] = [];
  const transport: Transport<string> = {
    async send(sentRequest, { fit }): Promise<TransportResult<string>> {
      sent.push(sentRequest);
      if (fit.estimate >= N_CTX) {
        const body = JSON.stringify({
          error: {
            code: 400,
            message: 'the request exceeds the available context size, try increasing it',
            type: 'exceed_context_size_error',
            n_prompt_tokens: fit.estimate,
            n_ctx: N_CTX,
          },
        });
        return { ok: false, failure: 'rejected', error: new Error(body), status: 400, body };
      }
      return { ok: true, response: 'ok', usage: { promptTokens: fit.estimate } };
    },
  };
  return { transport, sent };
}

describe('a provider that checks the prompt alone against the window', () => {
  it('learns it from the overflow and reserves only what a reply needs, not the whole max_tokens', async () => {
    const driver = new ConversationDriver({ counter: charCounter, contextLength: 32_768, model: MODEL });
    const { transport } = llamacppServer();
    const history = codingSession({ turns: 30, lines: 40 });
    const first = await driver.send({ request: request(history), transport });
    expect(first.ok).toBe(true);
    expect(driver.manager.windowCheckFor(MODEL)).toBe('prompt');
    const next = await driver.send({
      request: request([...history, { role: 'user', content: 'Go on.' }]),
      transport,
    });
    expect(next.ok && next.fit.window).toBe(N_CTX);
    expect(next.ok && next.fit.reserve).toBe(1_024);
  });

  it('reserves what a reply needs for a provider that checks prompt and reply together too', async () => {
    const driver = new ConversationDriver({ counter: charCounter, contextLength: N_CTX, model: MODEL });
    const result = driver.fit(request(codingSession({ turns: 2, lines: 5 })));
    expect(result.reserve).toBe(1_024);
  });
});
