/**
 * @module
 * One client request from the socket to the handler: the request target parsed (a target the URL
 * parser rejects is a 400, never a crash), the route chosen, the body read within its limits, and
 * every outcome that is not the handler's (a client that went away, a failure nobody expected)
 * answered, logged and counted once.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type RequestFormat, SpillwayError } from '../core/index.js';
import { forwardUnchanged } from './forward-unchanged.js';
import { handleChatRequest } from './handle-chat-request.js';
import { handleCountTokens } from './handle-count-tokens.js';
import { geminiCallOf, handleGeminiRequest } from './handle-gemini-request.js';
import { handleResponsesRequest } from './handle-responses-request.js';
import { OWNER_CHALLENGE_HEADER, OWNER_PROOF_HEADER, ownerProof } from './owner-proof.js';
import { type Exchange, type ProxyRuntime, sendProxyError } from './proxy-runtime.js';
import { readRequestBody } from './read-request-body.js';
import { credentialIdentity, redactSecrets, secretsOf } from './redact-secrets.js';
import { screenChatBody } from './screen-chat-body.js';
import { passthroughHeader, unfittedApiOf } from './unfitted-apis.js';
import { watchHalfClose } from './watch-half-close.js';

/**
 * The status recorded for a request whose client went away before the answer was complete
 * (nginx's 499, "client closed request"): neither a success nor a failure of the proxy.
 */
export const CLIENT_CLOSED_STATUS = 499;

type Route =
  | 'healthz'
  | 'metrics'
  | 'chat_completions'
  | 'messages'
  | 'count_tokens'
  | 'responses'
  | 'responses_input_tokens'
  | 'gemini'
  | 'passthrough'
  | 'forward'
  | 'invalid';

/** Routes whose body is a conversation Spillway fits, and the wire format each speaks. */
const FITTED_ROUTES: Partial<Record<Route, RequestFormat>> = {
  chat_completions: 'openai',
  messages: 'anthropic',
  count_tokens: 'anthropic',
  responses: 'responses',
  responses_input_tokens: 'responses',
  gemini: 'gemini',
};

/**
 * The route of a request. `/v1/messages` is fitted as Anthropic Messages whatever
 * `--upstream-format` says: a client that sends it there speaks Anthropic to this upstream, and an
 * upstream that does not would refuse it anyway.
 */
function routeOf(method: string, pathname: string): Route {
  if (pathname === '/healthz') return 'healthz';
  if (pathname === '/metrics') return 'metrics';
  if (method === 'POST') {
    if (pathname === '/v1/chat/completions') return 'chat_completions';
    if (pathname === '/v1/messages') return 'messages';
    if (pathname === '/v1/messages/count_tokens') return 'count_tokens';
    if (pathname === '/v1/responses') return 'responses';
    if (pathname === '/v1/responses/input_tokens') return 'responses_input_tokens';
    if (geminiCallOf(pathname)) return 'gemini';
  }
  return unfittedApiOf(method, pathname) ? 'passthrough' : 'forward';
}

/** A request target's path and query (`?…`, or empty), as the URL parser reads them. */
interface Target {
  pathname: string;
  search: string;
}

/**
 * A path the URL parser reads as it is: letters, digits, `-_.~:/`, no query, no `.` or `..`
 * segment, not starting `//` (a host). Most requests' targets are such paths, and parsing a URL
 * costs several microseconds.
 */
const PLAIN_PATH = /^\/(?!\/)[\w\-.~:/]*$/;
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;

/** The request target, or `undefined` when it is none (`//%zz/`, `http://[/x`, `//x:-1/`). */
export function parseTarget(target: string | undefined): Target | undefined {
  const raw = target ?? '/';
  if (PLAIN_PATH.test(raw) && !DOT_SEGMENT.test(raw)) return { pathname: raw, search: '' };
  try {
    const { pathname, search } = new URL(raw, 'http://proxy');
    return { pathname, search };
  } catch {
    return undefined;
  }
}

function sendText(
  response: ServerResponse,
  contentType: string,
  text: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(200, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

/** The proof of the owner's secret a `/healthz` challenge asks for, when the proxy holds one. */
function proofHeaders(runtime: ProxyRuntime, exchange: Exchange): Record<string, string> {
  const challenge = exchange.request.headers[OWNER_CHALLENGE_HEADER];
  if (runtime.ownerSecret === undefined || typeof challenge !== 'string') return {};
  const proof = ownerProof(runtime.ownerSecret, challenge);
  return proof === undefined ? {} : { [OWNER_PROOF_HEADER]: proof };
}

/** Reads the body and hands the exchange to the handler its route names. */
async function serveRoute(runtime: ProxyRuntime, exchange: Exchange, route: Route): Promise<void> {
  const { request, response } = exchange;
  if (route === 'healthz') {
    const health = {
      status: 'ok',
      upstream: runtime.upstreamRoot,
      upstream_format: runtime.upstreamFormat,
      store: runtime.state.store.kind,
    };
    sendText(response, 'application/json', JSON.stringify(health), proofHeaders(runtime, exchange));
    return;
  }
  if (route === 'metrics') {
    sendText(response, 'text/plain; version=0.0.4; charset=utf-8', runtime.metrics.render());
    return;
  }
  const read = await readRequestBody(request, runtime.maxBodyBytes);
  if (read.kind === 'aborted') {
    runtime.log({ level: 'info', event: 'client_aborted', route, bytes: read.bytes });
    return;
  }
  if (read.kind === 'too_large') {
    const message = `the request body is ${read.bytes} bytes, over the proxy's limit of ${runtime.maxBodyBytes} bytes; send less, or raise --max-body-bytes`;
    sendProxyError(
      exchange,
      { status: 413, message, type: 'invalid_request_error', code: 'request_too_large' },
      { connection: 'close' },
    );
    return;
  }
  if (route === 'forward') {
    await forwardUnchanged({ runtime, exchange, body: read.body });
    return;
  }
  if (route === 'passthrough') {
    await passThrough(runtime, exchange, read.body);
    return;
  }
  if (!(await screenChatBody({ runtime, exchange, body: read.body }))) return;
  const body = read.body;
  if (route === 'responses') await handleResponsesRequest({ runtime, exchange, body });
  else if (route === 'gemini') {
    const call = geminiCallOf(new URL(exchange.path, 'http://proxy').pathname);
    if (call) await handleGeminiRequest({ runtime, exchange, body, call });
  } else if (route === 'count_tokens' || route === 'responses_input_tokens')
    await handleCountTokens({ runtime, exchange, body, format: exchange.format });
  else await handleChatRequest({ runtime, exchange, body, format: exchange.format });
  runtime.metrics.observeAddedLatency((performance.now() - exchange.started - exchange.upstreamMs) / 1_000);
}

/** Sends a request to an API Spillway does not fit unchanged, saying so in a header and the log. */
async function passThrough(runtime: ProxyRuntime, exchange: Exchange, body: Buffer): Promise<void> {
  const api = unfittedApiOf(
    exchange.request.method ?? 'GET',
    new URL(exchange.path, 'http://proxy').pathname,
  );
  if (api === undefined) return;
  runtime.metrics.passthroughs.add({ api: api.api, reason: 'unfitted_api' });
  runtime.log({ level: 'info', event: 'passthrough', api: api.api, reason: 'unfitted_api' });
  await forwardUnchanged({ runtime, exchange, body, headers: { 'x-spillway-fit': passthroughHeader(api) } });
}

/**
 * What an error nobody handled becomes: the client's own mistake (`invalid_request`, or a request
 * Spillway's converters or checks refused as `invalid_transcript`) is a 400, anything else a 500.
 */
function answerFailure(runtime: ProxyRuntime, exchange: Exchange, route: Route, error: unknown): void {
  const message = redactSecrets(error instanceof Error ? error.message : String(error), exchange.secrets);
  if (exchange.signal.aborted) {
    runtime.log({ level: 'info', event: 'client_aborted', route });
    return;
  }
  if (
    SpillwayError.isInstance(error) &&
    (error.code === 'invalid_request' || error.code === 'invalid_transcript')
  ) {
    sendProxyError(exchange, {
      status: 400,
      message,
      type: 'invalid_request_error',
      code: typeof error.data.code === 'string' ? error.data.code : error.code,
      ...(typeof error.data.param === 'string' ? { param: error.data.param } : {}),
    });
    return;
  }
  runtime.log({ level: 'error', event: 'internal_error', route, message });
  sendProxyError(exchange, {
    status: 500,
    message: `Spillway proxy failed: ${message}; please report this`,
    type: 'server_error',
    code: 'internal_error',
  });
}

/**
 * The proxy's request listener. Every request is counted once, when its response closes: with its
 * status, or {@link CLIENT_CLOSED_STATUS} when the client left before the answer was complete.
 *
 * @example
 * const server = createServer(exchangeListener(runtime));
 */
export function exchangeListener(
  runtime: ProxyRuntime,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    const started = performance.now();
    const url = parseTarget(request.url);
    const method = request.method ?? 'GET';
    const route: Route = url === undefined ? 'invalid' : routeOf(method, url.pathname);
    if (url !== undefined) runtime.onRequest?.({ method, pathname: url.pathname });
    const controller = new AbortController();
    watchHalfClose(request, response);
    response.on('close', () => {
      const finished = response.writableFinished;
      if (!finished) controller.abort();
      const status = finished ? response.statusCode : CLIENT_CLOSED_STATUS;
      runtime.metrics.requests.add({ route, status: String(status) });
    });
    const exchange: Exchange = {
      request,
      response,
      path: url === undefined ? '/' : `${url.pathname}${url.search}`,
      started,
      upstreamMs: 0,
      // Gemini's API key may come as `?key=`: scrubbed like a credential header. Gathered here, not
      // when a text first needs scrubbing: a getter on the exchange left the process's native heap
      // some 17 MB larger after 10,000 conversations (`npm run bench -- memory`, smaps).
      secrets: [
        ...secretsOf(request.headers),
        ...(url && url.search !== '' ? new URLSearchParams(url.search).getAll('key') : []),
      ],
      credential: credentialIdentity(request.headers),
      signal: controller.signal,
      format: FITTED_ROUTES[route] ?? 'openai',
    };
    if (url === undefined) {
      request.resume();
      sendProxyError(
        exchange,
        {
          status: 400,
          message: `the request target ${JSON.stringify(request.url?.slice(0, 200))} is not a valid URL path; send a path such as /v1/chat/completions`,
          type: 'invalid_request_error',
          code: 'invalid_url',
        },
        { connection: 'close' },
      );
      return;
    }
    serveRoute(runtime, exchange, route).catch((error: unknown) =>
      answerFailure(runtime, exchange, route, error),
    );
  };
}
