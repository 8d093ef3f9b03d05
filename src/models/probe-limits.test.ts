import { describe, expect, it } from 'vitest';
import { PROBE_MAX_TOKENS, probeLimits, shouldProbe } from './probe-limits.js';

/** A fetch answering every request with `respond`, recording the bodies it was sent. */
function answering(respond: (init?: RequestInit) => Response | Promise<Response>): typeof fetch & {
  bodies: Array<Record<string, unknown>>;
  urls: string[];
} {
  const bodies: Array<Record<string, unknown>> = [];
  const urls: string[] = [];
  const implementation = async (input: string | URL | Request, init?: RequestInit) => {
    urls.push(String(input));
    bodies.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
    return respond(init);
  };
  return Object.assign(implementation as typeof fetch, { bodies, urls });
}

/** A server-sent event stream that counts how many chunks the reader pulled and whether it was cancelled. */
function eventStream(events: string[]): {
  response: Response;
  pulled: () => number;
  cancelled: () => boolean;
} {
  let index = 0;
  let cancelled = false;
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const event = events[index++];
      if (event === undefined) controller.close();
      else controller.enqueue(encoder.encode(`data: ${event}\n\n`));
    },
    cancel() {
      cancelled = true;
    },
  });
  return {
    response: new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
    pulled: () => index,
    cancelled: () => cancelled,
  };
}

describe('probeLimits', () => {
  it('sends one streamed message with max_tokens above any window to the chat endpoint', async () => {
    const fetch = answering(() => new Response('{}', { status: 401 }));
    await probeLimits({
      baseUrl: 'http://litellm:4000/v1',
      model: 'glm5.2',
      fetch,
      headers: { authorization: 'Bearer k' },
    });
    expect(fetch.urls).toEqual(['http://litellm:4000/v1/chat/completions']);
    expect(fetch.bodies[0]).toMatchObject({ model: 'glm5.2', max_tokens: PROBE_MAX_TOKENS, stream: true });
  });

  it('reads the window vLLM states through LiteLLM, and the output cap an OpenAI-style server states', async () => {
    const vllm =
      'litellm.BadRequestError: Hosted_vllmException - {"error":{"message":"max_tokens=1000000000 cannot be greater than max_model_len=max_total_tokens=210000. Please request fewer output tokens.","type":"BadRequestError","param":"max_tokens","code":400}}. Received Model Group=glm5.2';
    const stated = await probeLimits({
      baseUrl: 'http://litellm:4000',
      model: 'glm5.2',
      fetch: answering(() => Response.json({ error: { message: vllm, code: '400' } }, { status: 400 })),
    });
    expect(stated).toEqual({
      result: 'stated',
      status: 400,
      pattern: 'vllm-max-tokens-above-max-model-len',
      contextLength: 210_000,
    });
    const openai = await probeLimits({
      baseUrl: 'http://gateway',
      model: 'gpt-4o',
      fetch: answering(() =>
        Response.json(
          {
            error: {
              message:
                'max_tokens is too large: 1000000000. This model supports at most 16384 completion tokens, whereas you provided 1000000000.',
              type: 'invalid_request_error',
              param: 'max_tokens',
              code: null,
            },
          },
          { status: 400 },
        ),
      ),
    });
    expect(openai).toMatchObject({ result: 'stated', outputCap: 16_384 });
    expect(openai.contextLength).toBeUndefined();
  });

  it('reports a rejection without a figure as rejected, not as a limit', async () => {
    const outcome = await probeLimits({
      baseUrl: 'http://s',
      model: 'm',
      fetch: answering(() => Response.json({ error: { message: 'invalid api key' } }, { status: 401 })),
    });
    expect(outcome).toMatchObject({ result: 'rejected', status: 401 });
  });

  it('cuts a stream the server started at its first event: a server that does not validate generates almost nothing', async () => {
    const stream = eventStream([
      '{"choices":[{"delta":{"role":"assistant","content":"Hello"}}]}',
      '{"choices":[{"delta":{"content":" there"}}]}',
      '{"choices":[{"delta":{"content":" friend"}}]}',
    ]);
    const outcome = await probeLimits({
      baseUrl: 'http://s',
      model: 'm',
      fetch: answering(() => stream.response),
    });
    expect(outcome).toEqual({ result: 'accepted', status: 200 });
    expect(stream.pulled()).toBeLessThanOrEqual(2);
    expect(stream.cancelled()).toBe(true);
  });

  it('reads an overflow sent as the first event of a 200 stream', async () => {
    const stream = eventStream([
      '{"error":{"message":"This model\'s maximum context length is 32768 tokens. However, you requested 1000000012 tokens (12 in the messages, 1000000000 in the completion).","code":400}}',
    ]);
    const outcome = await probeLimits({
      baseUrl: 'http://s',
      model: 'm',
      fetch: answering(() => stream.response),
    });
    expect(outcome).toMatchObject({ result: 'stated', contextLength: 32_768 });
  });

  it('gives up within its deadline, and says so', async () => {
    const silent = answering(
      (init) =>
        new Promise<Response>((_, reject) =>
          init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
        ),
    );
    const outcome = await probeLimits({ baseUrl: 'http://s', model: 'm', fetch: silent, timeoutMs: 30 });
    expect(outcome).toEqual({ result: 'failed', message: 'the probe got no answer within 30 ms' });
  });
});

describe('shouldProbe', () => {
  it('probes only a gateway in front of a backend known to validate max_tokens before generating', () => {
    const litellm = { server: 'litellm', endpoint: '/model/info', claimed: true } as const;
    expect(shouldProbe({ ...litellm, backend: 'hosted_vllm' })).toBe(true);
    expect(shouldProbe({ ...litellm, backend: 'ollama_chat' })).toBe(false);
    expect(shouldProbe(litellm)).toBe(false);
    // vLLM's own max_model_len is what its check uses: nothing to verify.
    expect(shouldProbe({ server: 'vllm', endpoint: '/v1/models', contextLength: 32_768 })).toBe(false);
    expect(shouldProbe(undefined)).toBe(false);
  });
});
