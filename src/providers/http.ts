import { createParser, type EventSourceMessage } from 'eventsource-parser';
import {
  jsonTextDepthExcess,
  type OverflowInfo,
  type ProviderAnswer,
  SpillwayError,
  tooDeepMessage,
} from '../core/index.js';
import { ProviderError, safeHeaders } from './provider-error.js';

/** The longest error body kept, in characters: enough for every provider's overflow message. */
const MAX_ERROR_BODY = 64 * 1024;

/**
 * How long a stream may send nothing once its first chunk has come, in milliseconds. Servers send
 * tokens (or keep-alive comments) many times a second while they generate; half a minute of silence
 * mid-reply is a stuck server or connection, not a slow one.
 */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 30_000;

/**
 * How long the first chunk may take after the response headers, in milliseconds: the prefill of a
 * long prompt on a slow local server can take minutes (the same five minutes as Node's own `fetch`
 * waits for headers, undici's `headersTimeout`).
 */
export const DEFAULT_FIRST_CHUNK_TIMEOUT_MS = 300_000;

/** How long a streamed reply may go silent. */
export interface StreamTimeouts {
  /** Between two chunks, once the first has come (default {@link DEFAULT_STREAM_IDLE_TIMEOUT_MS}). */
  idleMs?: number;
  /** For the first chunk after the headers (default {@link DEFAULT_FIRST_CHUNK_TIMEOUT_MS}). */
  firstChunkMs?: number;
}

/** Checks stream timeouts given as options: positive integers of milliseconds. */
export function checkStreamTimeouts(timeouts: StreamTimeouts | undefined): void {
  for (const [name, value] of Object.entries(timeouts ?? {}))
    if (value !== undefined && (!Number.isInteger(value) || value <= 0))
      throw new SpillwayError(
        'invalid_config',
        `streamTimeouts.${name} must be a positive number of milliseconds, got ${value}`,
      );
}

/** A read of the next chunk, or a timeout after `ms` milliseconds (the read is cancelled then). */
async function readWithin<T>(
  reader: ReadableStreamDefaultReader<T>,
  ms: number,
): Promise<Awaited<ReturnType<ReadableStreamDefaultReader<T>['read']>> | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  try {
    return await Promise.race([reader.read(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Inputs of {@link postJson}. */
export interface PostOptions {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal?: AbortSignal;
  fetch?: typeof fetch;
  /** How an error answer is classified (see `SendOptions.classify`). */
  classify?: (answer: ProviderAnswer) => OverflowInfo;
}

/** POSTs JSON; resolves with an OK response, rejects with a {@link ProviderError} otherwise. */
export async function postJson({
  url,
  headers,
  body,
  signal,
  fetch: fetchImpl = fetch,
  classify,
}: PostOptions): Promise<Response> {
  let response: Response;
  try {
    response = await fetchImpl(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal,
    });
  } catch (error) {
    if (signal?.aborted)
      throw new ProviderError('the request was aborted', { failure: 'aborted' }, { cause: error });
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new ProviderError(
      `cannot reach ${new URL(url).origin}: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
      { failure: 'connection' },
      { cause: error },
    );
  }
  if (response.ok) return response;
  const text = await readBounded(response, signal);
  const status = response.status;
  throw new ProviderError(`${new URL(url).origin} answered ${status}: ${text.slice(0, 300)}`, {
    failure: 'http',
    status,
    headers: safeHeaders(response.headers),
    body: text,
    ...(classify ? { classify } : {}),
  });
}

async function readBounded(response: Response, signal?: AbortSignal): Promise<string> {
  try {
    const text = await response.text();
    return text.length > MAX_ERROR_BODY ? text.slice(0, MAX_ERROR_BODY) : text;
  } catch (error) {
    if (signal?.aborted)
      throw new ProviderError('the request was aborted', { failure: 'aborted' }, { cause: error });
    return '';
  }
}

/**
 * Reads a server-sent event stream, yielding each event. A stream that breaks off, or sends nothing
 * for longer than `timeouts` allow (once it has begun, {@link DEFAULT_STREAM_IDLE_TIMEOUT_MS}),
 * rejects with a `stream_interrupted` {@link ProviderError} that names the wait; an abort with
 * `aborted`.
 */
export async function* readEvents(
  response: Response,
  signal?: AbortSignal,
  timeouts: StreamTimeouts = {},
): AsyncGenerator<EventSourceMessage> {
  const { idleMs = DEFAULT_STREAM_IDLE_TIMEOUT_MS, firstChunkMs = DEFAULT_FIRST_CHUNK_TIMEOUT_MS } = timeouts;
  const body = response.body;
  if (!body)
    throw new ProviderError('the provider sent a streaming response without a body', {
      failure: 'stream_interrupted',
      status: response.status,
    });
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => queue.push(event) });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let started = false;
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        const wait = started ? idleMs : firstChunkMs;
        const read = await readWithin(reader, wait);
        if (read === 'timeout') {
          await reader.cancel().catch(() => undefined);
          throw new ProviderError(
            started
              ? `the stream sent nothing for ${wait / 1_000} s in the middle of the reply (stream idle timeout); the server or the connection is stuck: try again; if it needs longer, raise the stream idle timeout (stream_idle_timeout_seconds in the chat config, streamTimeouts.idleMs in code)`
              : `the stream sent nothing for ${wait / 1_000} s after it began (first chunk timeout); try again; if the prompt needs a longer prefill, raise the first chunk timeout (first_chunk_timeout_seconds in the chat config, streamTimeouts.firstChunkMs in code)`,
            { failure: 'stream_timeout', status: response.status },
          );
        }
        chunk = read;
        started = true;
      } catch (error) {
        if (ProviderError.isInstance(error)) throw error;
        if (signal?.aborted)
          throw new ProviderError('the request was aborted', { failure: 'aborted' }, { cause: error });
        throw new ProviderError(
          `the stream broke off before the reply finished (${(error as Error).message})`,
          { failure: 'stream_interrupted', status: response.status },
          { cause: error },
        );
      }
      if (chunk.done) break;
      parser.feed(decoder.decode(chunk.value, { stream: true }));
      while (queue.length > 0) yield queue.shift() as EventSourceMessage;
    }
    parser.feed(decoder.decode());
    while (queue.length > 0) yield queue.shift() as EventSourceMessage;
  } finally {
    reader.releaseLock();
    if (signal?.aborted) await body.cancel().catch(() => undefined);
  }
}

/** Parses one event's JSON data, or fails as an interrupted stream (a retry gets a clean one). */
export function eventJson(event: EventSourceMessage, status: number): Record<string, unknown> {
  try {
    const value = JSON.parse(event.data) as unknown;
    if (typeof value === 'object' && value !== null) return value as Record<string, unknown>;
  } catch {
    // Fall through to the error below.
  }
  throw new ProviderError(`the stream sent an event that is not a JSON object: ${event.data.slice(0, 120)}`, {
    failure: 'stream_interrupted',
    status,
  });
}

/**
 * The JSON object of an OK response. A body the connection cut off before its end is a `connection`
 * failure (retried like one: the provider never finished answering); a whole body that is not a
 * JSON object is `malformed_response` (not retried).
 */
export async function responseJson(response: Response): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw new ProviderError(
      `the connection broke off before the provider's answer was complete (${(error as Error).message})`,
      { failure: 'connection', status: response.status },
      { cause: error },
    );
  }
  if (jsonTextDepthExcess(text) !== undefined)
    throw new ProviderError(`the provider answered 200 with ${tooDeepMessage('JSON that')}`, {
      failure: 'malformed_response',
      status: response.status,
    });
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch (error) {
    throw new ProviderError(
      'the provider answered 200 with a body that is not JSON',
      { failure: 'malformed_response', status: response.status },
      { cause: error },
    );
  }
  throw new ProviderError('the provider answered 200 with JSON that is not an object', {
    failure: 'malformed_response',
    status: response.status,
  });
}
