/**
 * @module
 * The counting endpoints, answered for the request Spillway would send: Anthropic's
 * `POST /v1/messages/count_tokens` (Claude Code calls it to decide when to compact), the
 * Responses API's `POST /v1/responses/input_tokens` and Gemini's `countTokens` (its route hands the
 * request it read to {@link answerCount}). The body is fitted by the conversation's
 * driver, as the next send will be, and the answer is the best count of the fitted body there is,
 * in the endpoint's shape, with `x-spillway-count` saying which:
 * 1. `upstream`: the upstream's own count, from the same endpoint when it has one, else from its
 *    counting endpoint (vLLM `/tokenize`, llama.cpp `/apply-template` + `/tokenize`, TGI
 *    `/chat_tokenize`, Anthropic `count_tokens`, OpenAI `input_tokens`, Gemini `countTokens`);
 * 2. otherwise the fit's own count and its source: `anchored` (the upstream's usage of the request
 *    this one extends, plus the estimate of what was appended), `exact` (a tokenizer for the model),
 *    `calibrated` or `estimate`.
 */
import {
  type ChatRequest,
  ContextTruncatedError,
  type FitResult,
  type RequestFormat,
  toGemini,
  writeRequest,
} from '../core/index.js';
import { forwardUnchanged } from './forward-unchanged.js';
import { prepare, readChatRequest, spillwayHeaders } from './handle-chat-request.js';
import { previousResponseId, SERVER_STATE_FIT } from './handle-responses-request.js';
import { type Exchange, type ProxyRuntime, upstreamJsonPost } from './proxy-runtime.js';
import { upstreamCountEndpoint } from './upstream-counters.js';
import { forwardedResponseHeaders, sendAndRead } from './upstream-request.js';

/** What a counting route answers: the body, its status and headers, and whose count it is. */
interface CountAnswer {
  status: number;
  text: string;
  headers: Record<string, string | string[]>;
  /** `x-spillway-count`: `upstream`, or the fit's count source. */
  source: string;
  /** `x-spillway-count-endpoint`: the upstream path that counted, when the upstream did. */
  endpoint?: string;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/** Upstream paths that answered 404 or 405 to a count, by upstream: not asked again. */
const missingPaths = new WeakMap<ProxyRuntime, Set<string>>();

/**
 * The count a counting endpoint answers, when its JSON has one: `input_tokens` (Anthropic, the
 * Responses API), `totalTokens` (Gemini's `countTokens`).
 */
function countIn(format: RequestFormat, text: string): number | undefined {
  try {
    const value = JSON.parse(text) as { input_tokens?: unknown; totalTokens?: unknown };
    const count = format === 'gemini' ? value.totalTokens : value.input_tokens;
    return typeof count === 'number' ? count : undefined;
  } catch {
    return undefined;
  }
}

/** A count in the endpoint's shape. */
function countBody(format: RequestFormat, tokens: number): string {
  if (format === 'gemini')
    return JSON.stringify({
      totalTokens: tokens,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: tokens }],
    });
  return JSON.stringify(
    format === 'anthropic'
      ? { input_tokens: tokens }
      : { object: 'response.input_tokens', input_tokens: tokens },
  );
}

/** The body of a count request for the fitted request, in the route's format. */
function countRequestBody(format: RequestFormat, fitted: ChatRequest): Buffer {
  if (format === 'gemini') {
    const request = { model: `models/${fitted.model}`, ...toGemini(fitted) };
    return Buffer.from(JSON.stringify({ generateContentRequest: request }));
  }
  return Buffer.from(JSON.stringify(writeRequest(fitted)));
}

/** Step 1: the fitted body on the upstream's own copy of this endpoint; `undefined` when it gives no count. */
async function sameEndpointCount(
  runtime: ProxyRuntime,
  exchange: Exchange,
  format: RequestFormat,
  fitted: ChatRequest,
): Promise<CountAnswer | undefined> {
  const missing = missingPaths.get(runtime) ?? new Set<string>();
  missingPaths.set(runtime, missing);
  if (missing.has(exchange.path)) return undefined;
  const body = countRequestBody(format, fitted);
  const started = performance.now();
  try {
    const reply = await sendAndRead({ ...upstreamJsonPost(runtime, exchange, body), isStream: () => false });
    const text = (reply.body ?? Buffer.alloc(0)).toString('utf8');
    const status = reply.response.statusCode ?? 502;
    if (status === 404 || status === 405) missing.add(exchange.path);
    if (status >= 300 || countIn(format, text) === undefined) return undefined;
    return {
      status,
      text,
      headers: forwardedResponseHeaders(reply.response.headers),
      source: 'upstream',
      endpoint: exchange.path,
    };
  } catch {
    return undefined;
  } finally {
    exchange.upstreamMs += performance.now() - started;
  }
}

/** The endpoint kinds step 1 already asked, for each route's format. */
const SAME_KIND: Readonly<Record<RequestFormat, string>> = {
  anthropic: 'anthropic',
  responses: 'openai',
  openai: 'openai',
  gemini: 'gemini',
};

/** The path each counting endpoint kind answers on, for `x-spillway-count-endpoint`. */
const COUNT_PATHS: Readonly<Record<string, string>> = {
  vllm: '/tokenize',
  sglang: '/tokenize',
  llamacpp: '/tokenize',
  tgi: '/chat_tokenize',
  anthropic: '/v1/messages/count_tokens',
  openai: '/v1/responses/input_tokens',
  gemini: '/v1beta/models/{model}:countTokens',
};

/**
 * Step 2: the fitted request on the upstream's counting endpoint. Only an exact count is the
 * upstream's own: SGLang's `/tokenize` has no chat template, so its count is left out.
 */
async function serverEndpointCount(
  runtime: ProxyRuntime,
  exchange: Exchange,
  format: RequestFormat,
  fitted: ChatRequest,
): Promise<CountAnswer | undefined> {
  const started = performance.now();
  try {
    const counter = await upstreamCountEndpoint({ runtime, exchange, model: fitted.model });
    if (counter === undefined || counter.kind === SAME_KIND[format]) return undefined;
    const counted = await counter.measure(fitted, { signal: exchange.signal });
    if (!counted.ok || !counted.exact) return undefined;
    return {
      status: 200,
      text: countBody(format, counted.tokens),
      headers: JSON_HEADERS,
      source: 'upstream',
      endpoint: COUNT_PATHS[counted.kind],
    };
  } finally {
    exchange.upstreamMs += performance.now() - started;
  }
}

/** Step 3: the fit's own count of the fitted request, and where it came from. */
function fitCount(format: RequestFormat, fit: FitResult): CountAnswer {
  return {
    status: 200,
    text: countBody(format, fit.estimate),
    headers: JSON_HEADERS,
    source: fit.countSource,
  };
}

/**
 * The request a count answers for: the conversation as the proxy would send it. When nothing fits,
 * the count request goes to the upstream unchanged (it is the judge), and the result is undefined;
 * so it is when the client went away.
 */
export async function fitToCount({
  runtime,
  exchange,
  body,
  request,
}: {
  runtime: ProxyRuntime;
  exchange: Exchange;
  body: Buffer;
  request: ChatRequest;
}): Promise<FitResult | undefined> {
  const { driver } = await prepare(runtime, exchange, request);
  let fit: FitResult;
  try {
    fit = driver.fit(request);
  } catch (error) {
    if (!ContextTruncatedError.isInstance(error)) throw error;
    await forwardUnchanged({ runtime, exchange, body, headers: { 'x-spillway-fit': 'unfittable' } });
    return undefined;
  }
  return exchange.signal.aborted ? undefined : fit;
}

/**
 * Handles `POST /v1/messages/count_tokens` (`format: 'anthropic'`) and
 * `POST /v1/responses/input_tokens` (`format: 'responses'`). A body Spillway cannot read, one that
 * continues a stored response, and one nothing can fit are forwarded unchanged.
 *
 * @example
 * await handleCountTokens({ runtime, exchange, body, format: 'anthropic' });
 */
export async function handleCountTokens({
  runtime,
  exchange,
  body,
  format,
}: {
  runtime: ProxyRuntime;
  exchange: Exchange;
  body: Buffer;
  format: RequestFormat;
}): Promise<void> {
  if (format === 'responses' && previousResponseId(body) !== undefined) {
    await forwardUnchanged({ runtime, exchange, body, headers: { 'x-spillway-fit': SERVER_STATE_FIT } });
    return;
  }
  const request = await readChatRequest({ runtime, exchange, body, format });
  if (request === undefined) return;
  await answerCount({ runtime, exchange, body, format, request });
}

/**
 * Answers a count request Spillway read (`request`): fitted as the next send would be, then counted
 * by the upstream's own copy of the endpoint, else its counting endpoint, else the fit's own count.
 * One nothing can fit is forwarded unchanged.
 */
export async function answerCount({
  runtime,
  exchange,
  body,
  format,
  request,
}: {
  runtime: ProxyRuntime;
  exchange: Exchange;
  body: Buffer;
  format: RequestFormat;
  request: ChatRequest;
}): Promise<void> {
  const fit = await fitToCount({ runtime, exchange, body, request });
  if (fit === undefined) return;
  const answer =
    (await sameEndpointCount(runtime, exchange, format, fit.request)) ??
    (await serverEndpointCount(runtime, exchange, format, fit.request)) ??
    fitCount(format, fit);
  if (exchange.signal.aborted) return;
  exchange.response.writeHead(answer.status, {
    ...answer.headers,
    ...spillwayHeaders(fit, 'none'),
    'x-spillway-count': answer.source,
    ...(answer.endpoint === undefined ? {} : { 'x-spillway-count-endpoint': answer.endpoint }),
    'content-length': String(Buffer.byteLength(answer.text)),
  });
  exchange.response.end(answer.text);
}
