import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { ContextTruncatedError } from '../../core/index.js';
import type { AdapterEvent } from '../shared/adapter-options.js';
import { withSpillway } from './with-spillway.js';

type Json = Record<string, unknown>;

function fakeClient(reply: (body: Json, index: number) => Response) {
  const bodies: Json[] = [];
  const fetch = async (_url: string | URL | Request, init?: RequestInit) => {
    const body = JSON.parse(String(init?.body)) as Json;
    bodies.push(body);
    return reply(body, bodies.length - 1);
  };
  return {
    client: new Anthropic({ apiKey: 'unused', baseURL: 'http://127.0.0.1:9', maxRetries: 0, fetch }),
    bodies,
  };
}

const usage = {
  input_tokens: 40,
  cache_creation_input_tokens: 10,
  cache_read_input_tokens: 5,
  output_tokens: 2,
};

function message(text: string): Response {
  return Response.json({
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage,
  });
}

function streamed(text: string): Response {
  const events = [
    [
      'message_start',
      {
        type: 'message_start',
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 1 },
        },
      },
    ],
    [
      'content_block_start',
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    ],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    [
      'message_delta',
      {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: 2 },
      },
    ],
    ['message_stop', { type: 'message_stop' }],
  ];
  const body = events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join('');
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
}

/** Anthropic's 400 for prompt + max_tokens over the window (corpus anthropic-budget-04). */
function budgetOverflow(input: number, maxTokens: number, window: number): Response {
  return Response.json(
    {
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: `input length and \`max_tokens\` exceed context limit: ${input} + ${maxTokens} > ${window}, decrease input length or \`max_tokens\` and try again`,
      },
    },
    { status: 400 },
  );
}

const params = {
  model: 'claude-sonnet-4-5',
  max_tokens: 64_000,
  messages: [{ role: 'user' as const, content: 'hi' }],
};

describe('withSpillway (@anthropic-ai/sdk)', () => {
  it('leaves the client it was given as it was', () => {
    const { client } = fakeClient(() => message('plain'));
    const create = client.messages.create;
    const wrapped = withSpillway(client);
    expect(client.messages.create).toBe(create);
    expect(wrapped.messages.create).not.toBe(create);
  });

  it('feeds input plus cache tokens back as the prompt’s count', async () => {
    const events: AdapterEvent[] = [];
    const { client } = fakeClient(() => message('hello'));
    const reply = await withSpillway(client, { onEvent: (event) => events.push(event) }).messages.create(
      params,
    );
    expect(reply.content).toEqual([{ type: 'text', text: 'hello' }]);
    expect(events).toContainEqual({
      type: 'usage',
      model: 'claude-sonnet-4-5',
      promptTokens: 55,
      completionTokens: 2,
    });
  });

  it('rejects a request nothing can fit with ContextTruncatedError, sending nothing', async () => {
    const { client, bodies } = fakeClient(() => message('never'));
    const wrapped = withSpillway(client, { contextLength: 4_096 });
    await expect(
      wrapped.messages.create({
        ...params,
        max_tokens: 1_024,
        messages: [{ role: 'user', content: 'word '.repeat(20_000) }],
      }),
    ).rejects.toSatisfy((error) => ContextTruncatedError.isInstance(error));
    expect(bodies).toHaveLength(0);
  });

  it('passes an overloaded error through as the SDK’s own, without a second send', async () => {
    const { client, bodies } = fakeClient(() =>
      Response.json(
        { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
        { status: 529 },
      ),
    );
    await expect(withSpillway(client).messages.create(params)).rejects.toBeInstanceOf(Anthropic.APIError);
    expect(bodies).toHaveLength(1);
  });

  it('recovers a refused messages.stream once, its MessageStream reading the retried reply', async () => {
    const events: AdapterEvent[] = [];
    const { client, bodies } = fakeClient((body, index) =>
      index === 0 ? budgetOverflow(30, body.max_tokens as number, 32_000) : streamed('streamed'),
    );
    const wrapped = withSpillway(client, { onEvent: (event) => events.push(event) });
    const texts: string[] = [];
    const stream = wrapped.messages.stream(params).on('text', (text) => texts.push(text));
    const final = await stream.finalMessage();
    expect(final.content).toEqual([expect.objectContaining({ type: 'text', text: 'streamed' })]);
    expect(texts).toEqual(['streamed']);
    expect(bodies).toHaveLength(2);
    expect(bodies[0]?.max_tokens).toBe(64_000);
    expect(bodies[1]?.max_tokens).toBeLessThanOrEqual(32_000 - 30 - 512);
    expect(events.filter((event) => event.type === 'recovery')).toHaveLength(1);
    expect(events).toContainEqual({
      type: 'usage',
      model: 'claude-sonnet-4-5',
      promptTokens: 55,
      completionTokens: 1,
    });
  });
});
