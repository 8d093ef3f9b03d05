/**
 * @module
 * A chat request through the proxy: read, fitted to the upstream model's window, sent, and on an
 * upstream overflow recovered and retried once. What cannot be fitted is answered 400
 * `context_length_exceeded` with Spillway's explanation, never sent.
 */

import { proxyModelSettings } from '../config/proxy-config.js';
import {
  type Calibration,
  type ChatRequest,
  ContextTruncatedError,
  type OverflowInfo,
  type RequestFormat,
  readRequest,
  SpillwayError,
  writeRequest,
} from '../core/index.js';
import { applyStoredPrefix, conversationKey, prefixFromCompaction } from './conversation-prefix.js';
import { fitForUpstream, type UpstreamFit } from './fit-for-upstream.js';
import { forwardUnchanged } from './forward-unchanged.js';
import { type Exchange, type ProxyRuntime, sendProxyError } from './proxy-runtime.js';
import type { ConversationState, LearnedModelLimits, StoredPrefix } from './proxy-state.js';
import { parseRequestBody } from './read-request-body.js';
import { type ProxyRecoveryResult, recoverUpstreamOverflow } from './recover-overflow.js';
import { credentialHeaders, redactSecrets } from './redact-secrets.js';
import { resolveUpstreamLimits, type UpstreamLimits } from './resolve-upstream-limits.js';
import { type AttemptOutcome, sendChatAttempt } from './send-chat-attempt.js';
import { createUpstreamSummarizer } from './upstream-summarizer.js';

/** The `x-spillway-*` headers of a fitted request. */
export function spillwayHeaders(fit: UpstreamFit, recovery: string): Record<string, string> {
  return {
    'x-spillway-estimate': String(fit.estimate),
    'x-spillway-budget': String(fit.budget),
    'x-spillway-window': String(fit.window),
    'x-spillway-pruned-turns': String(fit.droppedTurns),
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

/** Everything loaded for a request before fitting. */
interface Prepared {
  request: ChatRequest;
  /** The request to fit: `request` with a stored prefix applied. */
  toFit: ChatRequest;
  limits: UpstreamLimits;
  reserve?: number;
  summaryMaxTokens?: number;
  key: string;
  conversation: ConversationState;
  calibration?: Calibration;
}

async function prepare(runtime: ProxyRuntime, exchange: Exchange, request: ChatRequest): Promise<Prepared> {
  const model = request.model;
  const key = conversationKey({ model, messages: request.messages, credential: exchange.credential });
  const [learned, calibration, conversation] = await Promise.all([
    model === undefined ? Promise.resolve<LearnedModelLimits>({}) : runtime.state.learnedLimits(model),
    model === undefined ? Promise.resolve(undefined) : runtime.state.calibration(model),
    runtime.state.conversation(key),
  ]);
  const settings = proxyModelSettings({ config: runtime.config, model });
  const limits = await resolveUpstreamLimits({
    model,
    baseUrl: runtime.upstreamRoot,
    ...(runtime.upstreamFormat === 'anthropic' ? { provider: 'anthropic' } : {}),
    settings,
    learned,
    headers: credentialHeaders(exchange.request.headers),
    cache: runtime.discovery,
    ...(runtime.fetch ? { fetch: runtime.fetch } : {}),
    signal: exchange.signal,
  });
  const substituted = conversation.prefix
    ? applyStoredPrefix(request.messages, conversation.prefix)
    : undefined;
  const toFit = substituted ? { ...request, messages: substituted } : request;
  return {
    request,
    toFit,
    limits,
    ...(settings.reserve === undefined ? {} : { reserve: settings.reserve }),
    ...(settings.summaryMaxTokens === undefined ? {} : { summaryMaxTokens: settings.summaryMaxTokens }),
    key,
    conversation,
    ...(calibration ? { calibration } : {}),
  };
}

function bodyOf(fit: UpstreamFit, original: Buffer): Buffer {
  return fit.unchanged ? original : Buffer.from(JSON.stringify(writeRequest(fit.request)));
}

/** Records what a reply taught: calibration from its usage, a window from a silent truncation. */
async function learnFromReply(
  runtime: ProxyRuntime,
  fit: UpstreamFit,
  outcome: AttemptOutcome,
): Promise<void> {
  const model = fit.request.model;
  if (outcome.kind !== 'forwarded' || outcome.promptTokens === undefined || model === undefined) return;
  const before = fit.manager.state;
  fit.manager.observe({ promptTokens: outcome.promptTokens });
  const after = fit.manager.state;
  const writes: Promise<void>[] = [];
  if (after.calibration.factor > before.calibration.factor)
    writes.push(runtime.state.saveCalibration(model, after.calibration));
  const window = after.learnedWindows[model];
  if (window !== undefined && window !== before.learnedWindows[model])
    writes.push(runtime.state.saveLearnedLimits(model, { contextLength: window }));
  await Promise.all(writes);
}

/** Model-level parts of the manager state: kept per model by the store, not per conversation. */
const MODEL_STATE_KEYS = new Set(['calibration', 'learnedWindows', 'learnedOutputCaps']);

/** Saves manager state beyond calibration and limits (sticky compression levels), when it changed. */
async function saveConversation(
  runtime: ProxyRuntime,
  prepared: Prepared,
  fit: UpstreamFit,
  prefix: StoredPrefix | undefined,
): Promise<void> {
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fit.manager.state as unknown as Record<string, unknown>))
    if (!MODEL_STATE_KEYS.has(key) && value !== undefined) rest[key] = value;
  const unchanged =
    prefix === undefined && JSON.stringify(rest) === JSON.stringify(prepared.conversation.manager ?? {});
  if (unchanged) return;
  await runtime.state.saveConversation(prepared.key, {
    ...prepared.conversation,
    ...(prefix ? { prefix } : {}),
    manager: rest,
  });
}

function recoveryLabel(overflow: OverflowInfo, result: ProxyRecoveryResult): string {
  return `${overflow.kind}:${result.action}`;
}

/**
 * Handles `POST /v1/chat/completions` (and `/v1/messages` for an Anthropic upstream).
 *
 * @example
 * await handleChatRequest({ runtime, exchange, body, format: 'openai' });
 */
export async function handleChatRequest({
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
  const { metrics } = runtime;
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
    return;
  }
  let request: ChatRequest;
  try {
    request = readRequest(value, { format });
  } catch (error) {
    if (!SpillwayError.isInstance(error) || error.code !== 'invalid_transcript') throw error;
    // Not a conversation Spillway can read: the upstream is the judge of what it accepts.
    await forwardUnchanged({ runtime, exchange, body, headers: { 'x-spillway-fit': 'skipped' } });
    return;
  }

  const prepared = await prepare(runtime, exchange, request);
  const fitOnce = (): UpstreamFit =>
    fitForUpstream({
      request: prepared.toFit,
      contextLength: prepared.limits.contextLength,
      ...(prepared.limits.outputCap === undefined ? {} : { outputCap: prepared.limits.outputCap }),
      ...(prepared.reserve === undefined ? {} : { reserve: prepared.reserve }),
      ...(prepared.calibration ? { calibration: prepared.calibration } : {}),
      ...(prepared.conversation.manager ? { managerState: prepared.conversation.manager } : {}),
    });
  let fit: UpstreamFit;
  try {
    fit = fitOnce();
  } catch (error) {
    if (ContextTruncatedError.isInstance(error)) {
      metrics.contextExceeded.add();
      runtime.log({ level: 'warn', event: 'context_exceeded', model: request.model, message: error.message });
      contextExceeded(exchange, `Spillway: ${error.message}`, {
        'x-spillway-estimate': String(error.details.estimate),
        'x-spillway-budget': String(error.details.budget),
        'x-spillway-window': String(error.details.window),
        'x-spillway-recovery': 'none',
      });
      return;
    }
    if (SpillwayError.isInstance(error) && error.code === 'invalid_transcript') {
      await forwardUnchanged({ runtime, exchange, body, headers: { 'x-spillway-fit': 'skipped' } });
      return;
    }
    throw error;
  }
  metrics.fits.add();
  const countPrunes = (current: UpstreamFit): void => {
    if (current.droppedTurns === 0) return;
    metrics.prunes.add();
    metrics.prunedTurns.add({}, current.droppedTurns);
  };
  countPrunes(fit);

  const attempt = (current: UpstreamFit, recovery: string): Promise<AttemptOutcome> =>
    sendChatAttempt({
      runtime,
      exchange,
      body: bodyOf(current, body),
      headers: spillwayHeaders(current, recovery),
      lastEstimate: current.estimate,
      window: current.window,
    });

  let outcome = await attempt(fit, 'none');
  let recovery = 'none';
  let prefix: StoredPrefix | undefined;
  if (outcome.kind === 'overflow') {
    const overflow = outcome.overflow;
    const result = await recoverUpstreamOverflow({
      sent: fit,
      overflow,
      summarize: createUpstreamSummarizer({ runtime, exchange }),
      ...(prepared.summaryMaxTokens === undefined ? {} : { summaryMaxTokens: prepared.summaryMaxTokens }),
      signal: exchange.signal,
    });
    if (exchange.signal.aborted) return;
    recovery = recoveryLabel(overflow, result);
    metrics.recoveries.add({ kind: overflow.kind, action: result.action });
    if (request.model !== undefined && Object.keys(result.learned).length > 0)
      await runtime.state.saveLearnedLimits(request.model, result.learned);
    runtime.log({
      level: 'warn',
      event: 'recovery',
      model: request.model,
      overflow: overflow.kind,
      pattern: overflow.pattern,
      action: result.action,
      steps: result.steps.map((step) => redactSecrets(step, exchange.secrets)),
    });
    const said = redactSecrets(upstreamMessage(outcome.text), exchange.secrets);
    if (!result.retry) {
      metrics.contextExceeded.add();
      contextExceeded(
        exchange,
        `Spillway: ${result.message ?? 'nothing smaller can be sent'}. The upstream said: ${said}`,
        spillwayHeaders(fit, recovery),
      );
      return;
    }
    fit = result.retry;
    countPrunes(fit);
    if (result.messages && result.action !== 'lower_max_tokens' && result.action !== 'lower_output_cap')
      prefix = prefixFromCompaction({
        client: prepared.request.messages,
        sent: prepared.toFit.messages,
        compacted: result.messages,
        ...(prepared.conversation.prefix ? { previous: prepared.conversation.prefix } : {}),
      });
    outcome = await attempt(fit, recovery);
    if (outcome.kind === 'overflow') {
      metrics.contextExceeded.add();
      contextExceeded(
        exchange,
        `Spillway: the upstream rejected the request as too long (${overflow.kind}), and again after recovery (${result.steps.join('; ')}); it was retried once. The upstream said: ${redactSecrets(upstreamMessage(outcome.text), exchange.secrets)}`,
        spillwayHeaders(fit, recovery),
      );
      return;
    }
  }
  if (outcome.kind === 'unreachable') {
    sendProxyError(exchange, {
      status: 502,
      message: outcome.message,
      type: 'upstream_error',
      code: 'upstream_unreachable',
    });
    return;
  }
  if (outcome.kind === 'aborted') return;
  await Promise.all([
    learnFromReply(runtime, fit, outcome),
    saveConversation(runtime, prepared, fit, prefix),
  ]);
  runtime.log({
    level: 'info',
    event: 'request',
    model: request.model,
    status: outcome.status,
    estimate: fit.estimate,
    budget: fit.budget,
    window: fit.window,
    pruned_turns: fit.droppedTurns,
    recovery,
  });
}
