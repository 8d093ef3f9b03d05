import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { ContextTruncatedError } from '../../core/index.js';
import type { AdapterEvent } from '../shared/adapter-options.js';
import { withSpillway } from './with-spillway.js';

type Json = Record<string, unknown>;

/** A client whose fetch answers from `reply` and records every body it was sent. */
function fakeClient(reply: (body: Json, index: number) => Response, baseURL = 'http://127.0.0.1:9/v1') {
  const bodies: Json[] = [];
  const fetch = async (_url: string | URL | Request, init?: RequestInit) => {
    const body = JSON.parse(String(init?.body)) as Json;
    bodies.push(body);
    return reply(body, bodies.length - 1);
  };
  return { client: new OpenAI({ apiKey: 'unused', baseURL, maxRetries: 0, fetch }), bodies };
}

function completion(content: string, promptTokens = 50): Response {
  return Response.json({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4o',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: null },
        finish_reason: 'stop',
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: promptTokens, completion_tokens: 3, total_tokens: promptTokens + 3 },
  });
}

describe('withSpillway (openai)', () => {
  it('leaves the client it was given as it was', async () => {
    const { client, bodies } = fakeClient(() => completion('plain'));
    const create = client.chat.completions.create;
    withSpillway(client);
    expect(client.chat.completions.create).toBe(create);
    await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    expect(bodies[0]).not.toHaveProperty('max_tokens');
  });

  it('fills in the reply cap as max_completion_tokens on api.openai.com and max_tokens elsewhere', async () => {
    const official = fakeClient(() => completion('a'), 'https://api.openai.com/v1');
    await withSpillway(official.client).chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(official.bodies[0]?.max_completion_tokens).toBe(16_384);
    const local = fakeClient(() => completion('b'));
    await withSpillway(local.client).chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(local.bodies[0]?.max_tokens).toBe(16_384);
  });

  it('rejects a request nothing can fit with ContextTruncatedError, sending nothing', async () => {
    const { client, bodies } = fakeClient(() => completion('never'));
    const wrapped = withSpillway(client, { contextLength: 2_048, outputCap: 512 });
    const request = wrapped.chat.completions.create({
      model: 'gpt-4o',
      // About 20,000 tokens: even the least the estimate allows it is over the window.
      messages: [{ role: 'user', content: 'word '.repeat(20_000) }],
    });
    await expect(request).rejects.toSatisfy((error) => ContextTruncatedError.isInstance(error));
    await expect(request.withResponse()).rejects.toSatisfy((error) =>
      ContextTruncatedError.isInstance(error),
    );
    expect(bodies).toHaveLength(0);
  });

  it('passes an error that is not an overflow through as the SDK’s own, without a second send', async () => {
    const { client, bodies } = fakeClient(() =>
      Response.json(
        {
          error: { message: 'Rate limit reached for gpt-4o', type: 'requests', code: 'rate_limit_exceeded' },
        },
        { status: 429 },
      ),
    );
    const events: AdapterEvent[] = [];
    const wrapped = withSpillway(client, { onEvent: (event) => events.push(event) });
    await expect(
      wrapped.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toBeInstanceOf(OpenAI.RateLimitError);
    expect(bodies).toHaveLength(1);
    expect(events.some((event) => event.type === 'overflow')).toBe(false);
  });

  it('recovers an overflow once; parse() and withResponse() see the retried reply', async () => {
    const overflow = () =>
      Response.json(
        {
          error: {
            message:
              "This model's maximum context length is 8192 tokens. However, you requested 16434 tokens (50 in the messages, 16384 in the completion). Please reduce the length of the messages or completion.",
            type: 'invalid_request_error',
            param: 'messages',
            code: 'context_length_exceeded',
          },
        },
        { status: 400 },
      );
    const { client, bodies } = fakeClient((_body, index) =>
      index % 2 === 0 ? overflow() : completion('{"ok":true}'),
    );
    const events: AdapterEvent[] = [];
    const wrapped = withSpillway(client, { onEvent: (event) => events.push(event) });
    const messages = [{ role: 'user' as const, content: 'hi' }];

    const parsed = await wrapped.chat.completions.parse({ model: 'gpt-4o', messages });
    expect(parsed.choices[0]?.message.content).toBe('{"ok":true}');
    expect(bodies.map((body) => body.max_tokens)).toEqual([16_384, 8_192 - 50 - 512]);

    const { data, response } = await wrapped.chat.completions
      .create({ model: 'gpt-4o', messages })
      .withResponse();
    expect(response.status).toBe(200);
    expect(data.choices[0]?.message.content).toBe('{"ok":true}');
    expect(events.filter((event) => event.type === 'recovery')).toHaveLength(2);
    expect(events).toContainEqual({ type: 'usage', model: 'gpt-4o', promptTokens: 50, completionTokens: 3 });
  });
});
