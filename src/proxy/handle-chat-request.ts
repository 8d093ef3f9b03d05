/**
 * @module
 * A chat request through the proxy: read, sent through its conversation's driver (fitted to the
 * upstream model's window, recovered and retried once on an upstream overflow), and the state the
 * driver learned saved for the next request. What cannot be fitted is answered 400
 * `context_length_exceeded` with Spillway's explanation, never sent.
 */

import {
  type Calibration,
  type ChatRequest,
  ContextTruncatedError,
  type ConversationDriver,
  calibrationsAgree,
  createCalibration,
  type DriverFailure,
  describeRecoveryStep,
  type FitResult,
  type RequestFormat,
  readRequest,
  SpillwayError,
  type Transport,
  writeRequest,
} from '../core/index.js';
import { conversationKey } from './conversation-key.js';
import { forwardUnchanged } from './forward-unchanged.js';
import { conversationStateOf, openConversationDriver } from './open-conversation-driver.js';
import { proxyModelSettings } from './proxy-config.js';
import { type Exchange, type ProxyRuntime, sendProxyError } from './proxy-runtime.js';
import type { ConversationState, LearnedModelLimits } from './proxy-state.js';
import { parseRequestBody } from './read-request-body.js';
import { credentialHeaders, redactSecrets } from './redact-secrets.js';
import { type LearnedEvidence, rememberLearnedLimits } from './remember-learned-limits.js';
import { resolveUpstreamLimitsReused, type UpstreamLimits } from './resolve-upstream-limits.js';
import { type AttemptOutcome, sendChatAttempt } from './send-chat-attempt.js';
import { upstreamCounters } from './upstream-counters.js';
import { createUpstreamSummarizer } from './upstream-summarizer.js';

/** The `x-spillway-*` headers of a fitted request: its count, the budget, and what was cut. */
export function spillwayHeaders(fit: FitResult, recovery: string): Record<string, string> {
  return {
    'x-spillway-estimate': String(fit.estimate),
    'x-spillway-count': fit.countSource,
    'x-spillway-verdict': fit.verdict,
    'x-spillway-budget': String(fit.budget),
    'x-spillway-window': String(fit.window),
    'x-spillway-cut': fit.cut.kind,
    'x-spillway-tokens-freed': String(fit.cut.freed),
    'x-spillway-pruned-turns': String(fit.droppedTurns),
    'x-spillway-elided-results': String(fit.cut.elided),
    'x-spillway-shortened-results': String(fit.cut.shortened),
    'x-spillway-recovery': recovery,
  };
}

function upstreamMessage(text: string): string {
  const match = /"message"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(text);
  let message = text;
  if (match?.[1] !== undefined) {
    try {
      message = JSON.parse(`"${match[1]}"`) as string;
    } catch {
      message = match[1];
    }
  }
  return message.length > 600 ? `${message.slice(0, 600)}…` : message;
}

function contextExceeded(exchange: Exchange, message: string, headers: Record<string, string> = {}): void {
  sendProxyError(
    exchange,
    {
      status: 400,
      message,
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    },
    headers,
  );
}

/** Everything loaded for a request before it is sent. */
export interface Prepared {
  request: ChatRequest;
  key: string;
  conversation: ConversationState;
  learned: LearnedModelLimits;
  /** The limits the driver was built from, with where each came from. */
  limits: UpstreamLimits;
  driver: ConversationDriver;
  /** The model's calibration as stored when the request began (none: nothing stored yet). */
  calibration?: Calibration;
}

/** The conversation's driver for a request, with the model's limits, calibration and stored state. */
export async function prepare(
  runtime: ProxyRuntime,
  exchange: Exchange,
  request: ChatRequest,
): Promise<Prepared> {
  const model = request.model;
  const key = conversationKey({ model, messages: request.messages, credential: exchange.credential });
  const { learned, calibration, conversation } = await runtime.state.requestState({
    model,
    credential: exchange.credential,
    key,
  });
  const settings = proxyModelSettings({ config: runtime.config, model });
  const resolved = await resolveUpstreamLimitsReused({
    model,
    baseUrl: runtime.upstreamRoot,
    ...(runtime.upstreamFormat === 'anthropic' || request.format === 'anthropic'
      ? { provider: 'anthropic' }
      : {}),
    settings,
    learned,
    headers: credentialHeaders(exchange.request.headers),
    cache: runtime.discovery,
    ...(runtime.fetch ? { fetch: runtime.fetch } : {}),
    signal: exchange.signal,
    log: (entry) => runtime.log(entry),
    probe: runtime.config?.probeLimits !== false,
  });
  // The Gemini API checks the prompt alone against the model's input limit; the reply has a limit
  // of its own ("The input token count (N) exceeds the maximum number of tokens allowed (M).").
  const limits =
    request.format === 'gemini' && resolved.windowCheck === undefined
      ? { ...resolved, windowCheck: 'prompt' as const }
      : resolved;
  const counters = await upstreamCounters({ runtime, exchange, model, limits });
  const driver = openConversationDriver({
    runtime,
    request,
    limits,
    settings,
    conversation,
    counters,
    ...(calibration ? { calibration } : {}),
  });
  return {
    request,
    key,
    conversation,
    learned,
    limits,
    driver,
    ...(calibration ? { calibration } : {}),
  };
}

/** The upstream as a driver's transport, with the last outcome and every overflow it was answered. */
type UpstreamTransport = Transport<AttemptOutcome & { kind: 'forwarded' }> & {
  last?: AttemptOutcome;
  rejected: LearnedEvidence['rejected'];
};

/** The upstream as the driver's transport: each attempt sent, relayed unless it is an overflow. */
function upstreamTransport({
  runtime,
  exchange,
  body,
  original,
  label,
}: {
  runtime: ProxyRuntime;
  exchange: Exchange;
  body: Buffer;
  /** The request as the client sent it: sent as its own bytes when fitting left it as it was. */
  original: ChatRequest;
  /** The recovery label of the next attempt (`none`, or `kind:action`). */
  label: () => string;
}): UpstreamTransport {
  const transport: UpstreamTransport = {
    rejected: [],
    async send(request, { fit, classify }) {
      const unchanged =
        request.messages === original.messages &&
        request.maxTokens === original.maxTokens &&
        request.extra === original.extra;
      const outcome = await sendChatAttempt({
        runtime,
        exchange,
        body: unchanged ? body : Buffer.from(JSON.stringify(writeRequest(request))),
        headers: spillwayHeaders(fit, label()),
        classify: (status, text) => classify({ status, body: text }),
      });
      transport.last = outcome;
      if (outcome.kind === 'forwarded')
        return {
          ok: true,
          response: outcome,
          ...(outcome.promptTokens === undefined ? {} : { usage: { promptTokens: outcome.promptTokens } }),
        };
      if (outcome.kind === 'aborted') return { ok: false, failure: 'aborted', error: new Error('aborted') };
      if (outcome.kind === 'unreachable')
        return { ok: false, failure: 'failed', error: new Error(outcome.message) };
      transport.rejected.push({
        overflow: outcome.overflow,
        sent: {
          promptTokens: fit.estimate,
          countSource: fit.countSource,
          window: fit.window,
          ...(request.maxTokens === undefined ? {} : { maxTokens: request.maxTokens }),
        },
      });
      return {
        ok: false,
        failure: 'rejected',
        error: outcome.text,
        status: outcome.status,
        body: outcome.text,
        overflow: outcome.overflow,
      };
    },
  };
  return transport;
}

/**
 * Handles `POST /v1/chat/completions`, `POST /v1/messages`, `POST /v1/responses` and Gemini's
 * `generateContent` / `streamGenerateContent` (the body in `format`).
 *
 * @example
 * await handleChatRequest({ runtime, exchange, body, format: 'openai' });
 */
export async function handleChatRequest({
  runtime,
  exchange,
  body,
  format,
  model,
}: {
  runtime: ProxyRuntime;
  exchange: Exchange;
  body: Buffer;
  format: RequestFormat;
  /** The model, when the URL names it and the body does not (Gemini). */
  model?: string;
}): Promise<void> {
  const request = await readChatRequest({ runtime, exchange, body, format, ...(model ? { model } : {}) });
  if (request === undefined) return;
  const prepared = await prepare(runtime, exchange, request);
  const { driver } = prepared;
  let label = 'none';
  let truncatedWindow: number | undefined;
  const unsubscribe = driver.subscribe((event) => {
    if (event.type === 'fit') {
      runtime.metrics.fits.add();
      if (event.verdict === 'uncertain') runtime.metrics.uncertain.add();
    }
    if (event.type === 'cut') {
      runtime.metrics.cuts.add({ kind: event.kind });
      runtime.metrics.tokensFreed.add({}, event.freed);
    }
    if (event.type === 'notice' && event.notice.code === 'silent_truncation') {
      // The client already has the reply; the learned window is stored for the model's next request.
      const { reported, expectedAtLeast, window } = event.notice;
      truncatedWindow = window ?? truncatedWindow;
      runtime.log({
        level: 'warn',
        event: 'silent_truncation',
        model: request.model,
        reported,
        expected_at_least: expectedAtLeast,
        ...(window === undefined ? {} : { window }),
      });
    }
    if (event.type !== 'recovery') return;
    label = `${event.overflow}:${event.action}`;
    runtime.metrics.recoveries.add({ kind: event.overflow, action: event.action });
    runtime.log({
      level: 'warn',
      event: 'recovery',
      model: request.model,
      overflow: event.overflow,
      action: event.action,
      steps: event.steps.map((step) => redactSecrets(describeRecoveryStep(step), exchange.secrets)),
    });
  });
  const transport = upstreamTransport({ runtime, exchange, body, original: request, label: () => label });
  const result = await driver.send({
    request,
    transport,
    summarize: createUpstreamSummarizer({ runtime, exchange }),
    signal: exchange.signal,
  });
  unsubscribe();
  const evidence: LearnedEvidence = {
    rejected: transport.rejected,
    ...(truncatedWindow === undefined ? {} : { truncatedWindow }),
  };
  if (exchange.signal.aborted) return;
  if (result.ok) {
    countPrunes(runtime, result.fit);
    await remember({ runtime, exchange, prepared, evidence });
    runtime.log({
      level: 'info',
      event: 'request',
      model: request.model,
      status: result.response.status,
      estimate: result.fit.estimate,
      budget: result.fit.budget,
      window: result.fit.window,
      pruned_turns: result.fit.droppedTurns,
      recovery: label,
    });
    return;
  }
  await remember({ runtime, exchange, prepared, evidence });
  answerFailure({ runtime, exchange, request, result, label, upstream: transport.last });
}

/** The request read from the body; `undefined` once the exchange has been answered. */
export async function readChatRequest({
  runtime,
  exchange,
  body,
  format,
  model,
}: {
  runtime: ProxyRuntime;
  exchange: Exchange;
  body: Buffer;
  format: RequestFormat;
  /** The model, when the URL names it and the body does not (Gemini). */
  model?: string;
}): Promise<ChatRequest | undefined> {
  let value: unknown;
  try {
    value = parseRequestBody(body);
  } catch (error) {
    sendProxyError(exchange, {
      status: 400,
      message: `the request body is not valid JSON (${(error as Error).message}); send one JSON object`,
      type: 'invalid_request_error',
      code: 'invalid_json',
    });
    return undefined;
  }
  try {
    return readRequest(value, { format, ...(model ? { model } : {}) });
  } catch (error) {
    if (!SpillwayError.isInstance(error) || error.code !== 'invalid_transcript') throw error;
    // Not a conversation Spillway can read: the upstream is the judge of what it accepts.
    await forwardUnchanged({ runtime, exchange, body, headers: { 'x-spillway-fit': 'skipped' } });
    return undefined;
  }
}

function countPrunes(runtime: ProxyRuntime, fit: FitResult): void {
  if (fit.droppedTurns === 0) return;
  runtime.metrics.prunes.add();
  runtime.metrics.prunedTurns.add({}, fit.droppedTurns);
}

/**
 * Saves what the request taught: the conversation's state, the model's calibration, and the limits
 * the upstream's answers showed (only figures that agree with what the proxy sent, kept for the
 * client's credential until confirmed; see `rememberLearnedLimits`).
 */
async function remember({
  runtime,
  exchange,
  prepared,
  evidence,
}: {
  runtime: ProxyRuntime;
  exchange: Exchange;
  prepared: Prepared;
  evidence: LearnedEvidence;
}): Promise<void> {
  const { driver, request, key, conversation } = prepared;
  const model = request.model;
  const driverState = driver.state;
  const state = conversationStateOf(driverState, conversation);
  const calibration = driverState.manager.calibration;
  // Written only when it counts differently: a reply that repeats what is known costs no write. Not
  // after an overflow that stated a prompt count: that count is the upstream's word about this
  // request alone, and an upstream that quotes client input in its errors can be made to state any
  // figure. The calibration it raised served the retry; the model's, shared by every client, is
  // calibrated by the next reply's usage instead.
  const stated = evidence.rejected.some(({ overflow }) => overflow.input !== undefined);
  const calibrated =
    model !== undefined &&
    !stated &&
    !calibrationsAgree(calibration, prepared.calibration ?? createCalibration());
  await Promise.all([
    runtime.state.saveRequestState({
      ...(state ? { conversation: { key, state } } : {}),
      ...(calibrated ? { calibration: { model, calibration } } : {}),
    }),
    model === undefined
      ? undefined
      : rememberLearnedLimits({ runtime, exchange, model, limits: prepared.limits, evidence }),
  ]);
}

/** Answers a send that got no reply to the client: 400 when nothing fits, 502 when unreachable. */
function answerFailure({
  runtime,
  exchange,
  request,
  result,
  label,
  upstream,
}: {
  runtime: ProxyRuntime;
  exchange: Exchange;
  request: ChatRequest;
  result: DriverFailure;
  label: string;
  upstream: AttemptOutcome | undefined;
}): void {
  const { overflow } = result;
  if (result.reason === 'aborted') return;
  if (result.reason === 'provider_error') {
    sendProxyError(exchange, {
      status: 502,
      message: upstream?.kind === 'unreachable' ? upstream.message : result.message,
      type: 'upstream_error',
      code: 'upstream_unreachable',
    });
    return;
  }
  runtime.metrics.contextExceeded.add();
  const said =
    upstream?.kind === 'overflow'
      ? ` The upstream said: ${redactSecrets(upstreamMessage(upstream.text), exchange.secrets)}`
      : '';
  if (ContextTruncatedError.isInstance(result.error) && overflow === undefined) {
    const { details } = result.error;
    runtime.log({ level: 'warn', event: 'context_exceeded', model: request.model, message: result.message });
    contextExceeded(exchange, `Spillway: ${result.message}`, {
      'x-spillway-estimate': String(details.estimate),
      'x-spillway-budget': String(details.budget),
      'x-spillway-window': String(details.window),
      'x-spillway-recovery': label,
    });
    return;
  }
  runtime.log({
    level: 'warn',
    event: 'context_exceeded',
    model: request.model,
    overflow: overflow?.kind,
    pattern: overflow?.pattern,
    recovery: label,
    message: redactSecrets(result.message, exchange.secrets),
  });
  contextExceeded(
    exchange,
    `Spillway: ${result.message}.${said}`,
    result.fit ? spillwayHeaders(result.fit, label) : { 'x-spillway-recovery': label },
  );
}
