import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { jsonTextDepthExcess, tooDeepMessage } from '../core/index.js';
import { ProviderError, safeHeaders } from './provider-error.js';

/** The longest error body kept, in characters: enough for every provider's overflow message. */
const MAX_ERROR_BODY = 64 * 1024;

/** Inputs of {@link postJson}. */
export interface PostOptions {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal?: AbortSignal;
  fetch?: typeof fetch;
  /** For classifying a bare 413 (see `classifyOverflow`). */
  lastEstimate?: number;
  window?: number;
}

/** POSTs JSON; resolves with an OK response, rejects with a {@link ProviderError} otherwise. */
export async function postJson({
  url,
  headers,
  body,
  signal,
  fetch: fetchImpl = fetch,
  lastEstimate,
  window,
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
    lastEstimate,
    window,
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
 * Reads a server-sent event stream, yielding each event. A stream that breaks off rejects with a
 * `stream_interrupted` {@link ProviderError}; an abort with `aborted`.
 */
export async function* readEvents(
  response: Response,
  signal?: AbortSignal,
): AsyncGenerator<EventSourceMessage> {
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
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
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
