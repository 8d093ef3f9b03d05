/**
 * @module
 * How the proxy fits one request: a fresh `ContextWindowManager` per request (the proxy is stateless
 * per request), restored from the stored state, with the client's `max_tokens` kept whenever the
 * window has room for it and lowered only when it does not.
 */
import {
  type Calibration,
  type ChatRequest,
  ContextWindowManager,
  clampOutputTokens,
  createCalibration,
  type ManagerState,
  splitTurns,
  tokenizerFamilyOf,
} from '../core/index.js';
import { cachedEstimator } from './cached-estimator.js';

/**
 * The reply reserve never takes more than this share of the window: a client that asks for the
 * model's whole output cap (LiteLLM advertises 96,000 of a 96,000 window) still gets its history
 * fitted, and its `max_tokens` lowered to the room left.
 */
export const MAX_RESERVE_SHARE = 0.25;

/** Inputs of {@link fitForUpstream}. */
export interface FitForUpstreamOptions {
  request: ChatRequest;
  contextLength: number;
  outputCap?: number;
  /** A fixed reply reserve from the configuration. */
  reserve?: number;
  calibration?: Calibration;
  /** Manager state besides the calibration (sticky compression levels, learned caps), as saved. */
  managerState?: Partial<ManagerState> & Record<string, unknown>;
}

/** A fitted request, ready to send, and the manager that fitted it. */
export interface UpstreamFit {
  manager: ContextWindowManager;
  /**
   * What the manager fitted: the client's request with `max_tokens` at most the reply reserve
   * (recovery fits it again, so it reproduces what was sent).
   */
  source: ChatRequest;
  /** The request to send. */
  request: ChatRequest;
  /** The `max_tokens` the client asked for. */
  requested?: number;
  /** The output cap the fit used (configured, discovered or learned). */
  outputCap?: number;
  /** The configured reply reserve, if any (it then replaces {@link replyReserve}). */
  reserve?: number;
  /** Estimated prompt tokens of `request`. */
  estimate: number;
  /** Prompt tokens the window allows. */
  budget: number;
  window: number;
  /** Turns of the client's history not in `request` (pruned or compacted away). */
  droppedTurns: number;
  /** Whether `request` is the client's, message for message, with the same `max_tokens`. */
  unchanged: boolean;
}

/**
 * The most a request's reply may reserve of the window: its `max_tokens`, else the output cap,
 * never more than a quarter of the window; `undefined` leaves the manager's default (2%, at least
 * 1,000).
 */
export function replyReserve({
  window,
  requested,
  outputCap,
}: {
  window: number;
  requested?: number;
  outputCap?: number;
}): number | undefined {
  const wanted = requested ?? outputCap;
  if (wanted === undefined) return undefined;
  return Math.max(1, Math.min(wanted, Math.floor(window * MAX_RESERVE_SHARE)));
}

/** Turns of `before` that `after` no longer holds. */
export function droppedTurns(before: ChatRequest['messages'], after: ChatRequest['messages']): number {
  return Math.max(0, splitTurns(before).turns.length - splitTurns(after).turns.length);
}

/**
 * Fits a request for the upstream with a fresh manager restored from the stored state: budget
 * `window - reserve - 3%`, where the reserve is the request's `max_tokens` (at most a quarter of the
 * window, see {@link replyReserve}); old tool outputs compressed and the oldest whole turns dropped
 * when the prompt is over it; `max_tokens = min(requested, cap, window - prompt - 512)`, never below
 * `min(1024, cap)`, filled in when the request has none. A `max_tokens` the window has room for is
 * sent unchanged. Throws `ContextTruncatedError` when even the head and
 * the newest turn do not fit.
 *
 * @example
 * const fit = fitForUpstream({ request: fromOpenAIChat(body), contextLength: 9_600, outputCap: 9_600 });
 * fit.request.maxTokens; // the client's 9,600 lowered to what the prompt leaves
 */
export function fitForUpstream({
  request,
  contextLength,
  outputCap,
  reserve,
  calibration,
  managerState,
}: FitForUpstreamOptions): UpstreamFit {
  const manager = new ContextWindowManager({
    contextLength,
    ...(outputCap === undefined ? {} : { outputCap }),
    ...(request.model === undefined ? {} : { model: request.model }),
    counter: cachedEstimator(tokenizerFamilyOf(request.model)),
    ...(reserve === undefined ? {} : { reserve }),
    clamp: 'always',
  });
  manager.restore({
    ...managerState,
    calibration: calibration ?? managerState?.calibration ?? createCalibration(),
    learnedWindows: {},
  });
  const limit =
    reserve === undefined
      ? replyReserve({ window: contextLength, requested: request.maxTokens, outputCap })
      : undefined;
  const source: ChatRequest = { ...request };
  if (limit !== undefined) {
    source.maxTokens = limit;
    source.maxTokensField = request.maxTokensField ?? 'max_tokens';
  }
  const fitted = manager.fit(source);
  const out = fitted.request;
  // The reserve bounded the prompt; the reply may still have all the room the prompt leaves, up to
  // what the client asked for.
  const maxTokens = clampOutputTokens({
    window: fitted.window,
    promptEstimate: fitted.estimate,
    outputCap: manager.outputCapFor(request.model),
    requested: request.maxTokens,
    mode: 'always',
  });
  if (maxTokens !== undefined) {
    out.maxTokens = maxTokens;
    out.maxTokensField ??= 'max_tokens';
  }
  const cap = manager.outputCapFor(request.model);
  return {
    manager,
    source,
    request: out,
    ...(request.maxTokens === undefined ? {} : { requested: request.maxTokens }),
    ...(cap === undefined ? {} : { outputCap: cap }),
    ...(reserve === undefined ? {} : { reserve }),
    estimate: fitted.estimate,
    budget: fitted.budget,
    window: fitted.window,
    droppedTurns: fitted.droppedTurns,
    unchanged: out.messages === request.messages && out.maxTokens === request.maxTokens,
  };
}
