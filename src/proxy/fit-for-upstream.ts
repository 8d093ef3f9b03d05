/**
 * @module
 * How the proxy fits one request: a fresh `ContextWindowManager` per request (the proxy is stateless
 * per request), restored from the stored calibration, with the client's `max_tokens` kept whenever
 * the prompt leaves room for it and lowered only when it does not.
 */
import {
  type Calibration,
  type ChatRequest,
  ContextWindowManager,
  clampOutputTokens,
  createCalibration,
  type FitResult,
} from '../core/index.js';

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
  /** Manager state besides calibration and learned windows, restored as it was saved. */
  managerState?: Record<string, unknown>;
}

/** A fitted request and the manager that fitted it. */
export interface UpstreamFit {
  manager: ContextWindowManager;
  fit: FitResult;
  /** Whether the fitted request is the client's, message for message, with the same `max_tokens`. */
  unchanged: boolean;
}

/**
 * The reserve a request's prompt budget keeps for the reply: the configured one, else the request's
 * `max_tokens`, else the output cap, else the manager's default; never more than a quarter of the
 * window.
 */
export function replyReserve({
  window,
  requested,
  outputCap,
  reserve,
}: {
  window: number;
  requested?: number;
  outputCap?: number;
  reserve?: number;
}): number | undefined {
  if (reserve !== undefined) return reserve;
  const wanted = requested ?? outputCap;
  if (wanted === undefined) return undefined;
  return Math.max(1, Math.min(wanted, Math.floor(window * MAX_RESERVE_SHARE)));
}

/**
 * Fits a request for the upstream. The prompt budget is `window - reserve - 3%`; when the request
 * asks for more than the prompt leaves, `max_tokens` becomes `min(cap, window - prompt - 512)`
 * (never raised, never below `min(1024, cap)`); without one, it is filled in the same way. Throws
 * `ContextTruncatedError` when even the head and the newest turn do not fit.
 *
 * @example
 * const { fit } = fitForUpstream({ request: fromOpenAIChat(body), contextLength: 9_600, outputCap: 9_600 });
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
    clamp: 'never',
  });
  manager.restore({
    ...managerState,
    calibration: calibration ?? createCalibration(),
    learnedWindows: {},
  });
  const budgeted = replyReserve({ window: contextLength, requested: request.maxTokens, outputCap, reserve });
  const probe: ChatRequest = { ...request };
  if (budgeted === undefined) delete probe.maxTokens;
  else probe.maxTokens = budgeted;
  const fitted = manager.fit(probe);
  const maxTokens = clampOutputTokens({
    window: fitted.window,
    promptEstimate: fitted.estimate,
    outputCap,
    requested: request.maxTokens,
    mode: 'always',
  });
  const out: ChatRequest = { ...fitted.request };
  if (maxTokens === undefined) {
    delete out.maxTokens;
  } else {
    out.maxTokens = maxTokens;
    out.maxTokensField = request.maxTokensField ?? 'max_tokens';
  }
  const unchanged = out.messages === request.messages && out.maxTokens === request.maxTokens;
  return { manager, fit: { ...fitted, request: out }, unchanged };
}
