/**
 * @module
 * Counting a request on the server that will run it: vLLM, SGLang and TGI tokenizers, llama.cpp's
 * template and tokenizer, Anthropic's and OpenAI's input-token endpoints, Gemini's countTokens. A
 * measured count beats any estimate; this is how Spillway gets one for a decision that is close.
 */
import { type ChatRequest, EstimateCache, hashText, LruCache, SpillwayError } from '../core/index.js';
import {
  type CountCall,
  type CountEndpointKind,
  countCallsFor,
  llamacppTokenizeCall,
} from './count-request-bodies.js';
import { serverRoot } from './discover-limits.js';

/** How long one count may take, in milliseconds: a count that arrives later is no help to a send. */
export const DEFAULT_COUNT_TIMEOUT_MS = 2_000;

/** How many counted requests are remembered, by digest. */
export const DEFAULT_COUNT_CACHE_ENTRIES = 256;

/** A count, or why there is none. Server failures are values, never exceptions. */
export type ServerCount =
  | {
      ok: true;
      tokens: number;
      /** False when the endpoint counts content only and the template's cost was added (SGLang). */
      exact: boolean;
      kind: CountEndpointKind;
      /** Served from the cache of earlier counts. */
      cached: boolean;
    }
  | {
      ok: false;
      kind: CountEndpointKind;
      reason: 'timeout' | 'aborted' | 'unreachable' | 'http_error' | 'unsupported' | 'bad_answer';
      status?: number;
      detail: string;
    };

/** Options of {@link createServerCounter}. */
export interface ServerCounterOptions {
  /** The server's base URL, with or without `/v1`. */
  baseUrl: string;
  /** Which counting endpoint the server has (`detectCountEndpoint` finds it). */
  kind: CountEndpointKind;
  /** The model to count for (the request's own `model` when absent). */
  model?: string;
  /** Sent with every count: `authorization`, `x-api-key`, `x-goog-api-key`… */
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  /** Deadline of one count (default {@link DEFAULT_COUNT_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** Counts remembered (default {@link DEFAULT_COUNT_CACHE_ENTRIES}). */
  cacheEntries?: number;
}

/** Counts requests on one server. */
export interface ServerCounter {
  readonly kind: CountEndpointKind;
  /** The count with how it was obtained, or the reason there is none. */
  measure(request: ChatRequest, options?: { signal?: AbortSignal }): Promise<ServerCount>;
  /** Just the tokens, `undefined` when the server could not say: the driver's `measure`. */
  count(request: ChatRequest, options?: { signal?: AbortSignal }): Promise<number | undefined>;
}

/** The template's own cost, for endpoints that count content only: the estimator's upper figures. */
const TEMPLATE_ONLY = new EstimateCache({ name: 'template-only', count: () => 0 });

function rootFor(kind: CountEndpointKind, baseUrl: string): string {
  if (kind === 'gemini') return new URL(serverRoot(baseUrl)).origin;
  return serverRoot(baseUrl);
}

function digestOf(request: ChatRequest, model: string | undefined): string {
  return hashText(JSON.stringify([model ?? request.model ?? '', request.messages, request.tools]));
}

/**
 * A time-bounded, cached counter on a server's counting endpoint. Each count takes at most
 * `timeoutMs`; the same request (by digest of model, messages and tools) is counted once; a server
 * that answers 404 or 405 is remembered as having no such endpoint and not asked again. It never
 * rejects for what the server does: a failure is a `{ ok: false, reason }` value.
 *
 * @example
 * import { createServerCounter } from 'spillway/models';
 * const counter = createServerCounter({ baseUrl: 'http://localhost:8000/v1', kind: 'vllm' });
 * const driver = new ConversationDriver({ contextLength: 32_768, measure: (request) => counter.count(request) });
 */
export function createServerCounter(options: ServerCounterOptions): ServerCounter {
  const { kind, model, headers = {}, timeoutMs = DEFAULT_COUNT_TIMEOUT_MS } = options;
  if (!(timeoutMs > 0))
    throw new SpillwayError(
      'invalid_argument',
      `timeoutMs must be a positive number of milliseconds, got ${timeoutMs}`,
    );
  const root = rootFor(kind, options.baseUrl);
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const cache = new LruCache<string, number>({
    maxEntries: options.cacheEntries ?? DEFAULT_COUNT_CACHE_ENTRIES,
  });
  const pending = new Map<string, Promise<ServerCount>>();
  let unsupported: ServerCount | undefined;
  const send: SendCall = (call, signal) =>
    post(fetchImpl, `${root}${call.path}`, call, { kind, headers, signal });

  const measure = async (
    request: ChatRequest,
    { signal }: { signal?: AbortSignal } = {},
  ): Promise<ServerCount> => {
    if (unsupported) return unsupported;
    const key = digestOf(request, model);
    const cached = cache.get(key);
    if (cached !== undefined)
      return { ok: true, tokens: cached, exact: kind !== 'sglang', kind, cached: true };
    let running = pending.get(key);
    if (!running) {
      const deadline = AbortSignal.timeout(timeoutMs);
      running = countOnce(kind, request, model, send, signal ? AbortSignal.any([deadline, signal]) : deadline)
        .then((result) => {
          if (result.ok) cache.set(key, result.tokens);
          else if (result.reason === 'unsupported') unsupported = result;
          return result;
        })
        .finally(() => pending.delete(key));
      pending.set(key, running);
    }
    return running;
  };
  return {
    kind,
    measure,
    count: async (request, countOptions) => {
      const result = await measure(request, countOptions);
      return result.ok ? result.tokens : undefined;
    },
  };
}

type SendCall = (
  call: CountCall,
  signal: AbortSignal,
) => Promise<{ ok: true; answer: unknown } | (ServerCount & { ok: false })>;

async function countOnce(
  kind: CountEndpointKind,
  request: ChatRequest,
  model: string | undefined,
  send: SendCall,
  signal: AbortSignal,
): Promise<ServerCount> {
  const [first] = countCallsFor(kind, request, model);
  if (!first) return { ok: false, kind, reason: 'unsupported', detail: `no counting call for ${kind}` };
  let call = first;
  let answered = await send(call, signal);
  if (answered.ok && kind === 'llamacpp') {
    const prompt = (answered.answer as { prompt?: unknown } | undefined)?.prompt;
    if (typeof prompt !== 'string')
      return {
        ok: false,
        kind,
        reason: 'bad_answer',
        detail: '/apply-template answered without a string "prompt"',
      };
    call = llamacppTokenizeCall(prompt);
    answered = await send(call, signal);
  }
  if (!answered.ok) return answered;
  const tokens = call.read(answered.answer);
  if (tokens === undefined)
    return { ok: false, kind, reason: 'bad_answer', detail: `${call.path} answered without a token count` };
  if (kind !== 'sglang') return { ok: true, tokens, exact: true, kind, cached: false };
  // SGLang's /tokenize has no chat template: add the template's cost at the estimator's figures.
  return {
    ok: true,
    tokens: tokens + TEMPLATE_ONLY.request(request).overhead,
    exact: false,
    kind,
    cached: false,
  };
}

async function post(
  fetchImpl: typeof fetch,
  url: string,
  call: CountCall,
  {
    kind,
    headers,
    signal,
  }: { kind: CountEndpointKind; headers: Record<string, string>; signal: AbortSignal },
): Promise<{ ok: true; answer: unknown } | (ServerCount & { ok: false })> {
  const versioned =
    kind === 'anthropic' && !Object.keys(headers).some((name) => name.toLowerCase() === 'anthropic-version');
  try {
    const response = await fetchImpl(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        // The API version the count_tokens reference documents.
        ...(versioned ? { 'anthropic-version': '2023-06-01' } : {}),
        ...headers,
      },
      body: JSON.stringify(call.body),
      signal,
    });
    const text = await response.text();
    if (!response.ok) {
      const reason = response.status === 404 || response.status === 405 ? 'unsupported' : 'http_error';
      return {
        ok: false,
        kind,
        reason,
        status: response.status,
        detail: `${call.path} answered ${response.status}: ${text.slice(0, 200)}`,
      };
    }
    try {
      return { ok: true, answer: JSON.parse(text) as unknown };
    } catch {
      return {
        ok: false,
        kind,
        reason: 'bad_answer',
        status: response.status,
        detail: `${call.path} answered non-JSON`,
      };
    }
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name === 'TimeoutError')
      return { ok: false, kind, reason: 'timeout', detail: `${call.path} took longer than the deadline` };
    if (name === 'AbortError')
      return { ok: false, kind, reason: 'aborted', detail: `${call.path} was aborted` };
    return { ok: false, kind, reason: 'unreachable', detail: `${call.path}: ${(error as Error).message}` };
  }
}
