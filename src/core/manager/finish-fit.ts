/**
 * @module
 * The last steps of `fit`, as functions: the planned messages checked for pairing and given their
 * `max_tokens`, the result reported, and the error when not even the smallest request fits.
 */
import { type Budget, type ClampMode, clampOutputTokens } from '../budget/index.js';
import type { CompressionState } from '../compress/index.js';
import { ContextTruncatedError, SpillwayError } from '../errors/index.js';
import type { SchemaSource } from '../schemas/index.js';
import {
  type Calibration,
  type EstimateCache,
  REQUEST_OVERHEAD,
  scalarFactor,
  type TokenBreakdown,
} from '../tokens/index.js';
import { type ChatRequest, type Message, splitTurns, validatePairing } from '../transcript/index.js';
import type { FitPlan } from './fit-pipeline.js';
import type { FitResult } from './fit-result.js';
import type { ManagerNotice } from './manager-notice.js';
import { recallSpans } from './placeholders.js';
import { budgetFor, isMeasured, type RequestCount } from './request-count.js';
import { requestParts, truncatedMessage } from './truncated-message.js';

/**
 * The request the plan makes: its messages (pairing re-checked where the fit changed them) and
 * `max_tokens` clamped to the room the prompt leaves.
 */
export function fittedRequest({
  request,
  plan,
  limits,
  outputCap,
  clamp,
}: {
  request: ChatRequest;
  plan: FitPlan;
  limits: Budget;
  outputCap: number | undefined;
  clamp: ClampMode | undefined;
}): ChatRequest {
  // The input's pairing was asserted on the way in: only a cut can break it.
  const pairing = plan.messages === request.messages ? { ok: true as const } : validatePairing(plan.messages);
  if (!pairing.ok)
    throw new SpillwayError(
      'internal',
      `fitting produced an invalid transcript (${pairing.issues[0]?.message}); please report this`,
      { data: { issues: pairing.issues } },
    );
  // The clamp keeps its full margin even on a measured count: an anchored count still estimates
  // what was appended, and real clients' requests (opencode against vLLM) were rejected for
  // prompt + max_tokens when the margin was the budget's 256 tokens. A request only the estimate
  // doubts asks for the room its prompt leaves at the middle of what it can count: reserving as if
  // the estimate's high end were true would cut short replies that fit, and where the prompt does
  // count more the provider says by how much (recovery lowers max_tokens from that figure).
  const promptEstimate =
    plan.verdict === 'uncertain' && !isMeasured(plan.count)
      ? Math.ceil((plan.count.low + plan.count.tokens) / 2)
      : plan.count.tokens;
  const maxTokens = clampOutputTokens({
    window: limits.window,
    promptEstimate,
    outputCap,
    requested: request.maxTokens,
    mode: clamp,
    required: request.format === 'anthropic',
  });
  const fitted: ChatRequest = { ...request, messages: plan.messages };
  if (maxTokens === undefined) delete fitted.maxTokens;
  else fitted.maxTokens = maxTokens;
  return fitted;
}

/** What `fit` returns for a plan and the request it made. */
export function fitResult({
  request,
  fitted,
  plan,
  limits,
  breakdown,
  schemaTokens,
  notices,
  compression,
}: {
  request: ChatRequest;
  fitted: ChatRequest;
  plan: FitPlan;
  limits: Budget;
  breakdown: TokenBreakdown;
  schemaTokens: number;
  notices: ManagerNotice[];
  compression: CompressionState;
}): FitResult {
  const droppedTurns = plan.cut.droppedTurns;
  const { pruned } = plan;
  return {
    request: fitted,
    estimate: plan.count.tokens,
    countSource: plan.count.source,
    verdict: plan.verdict,
    budget: budgetFor(plan.count, limits),
    window: limits.window,
    reserve: limits.reserve,
    schemaTokens,
    cut: plan.cut,
    pruned: droppedTurns > 0,
    droppedTurns,
    breakdown,
    anchored: plan.count.source === 'anchored',
    notices,
    compressed: plan.cut.elided,
    recall: recallSpans({
      messages: request.messages,
      state: compression,
      ...(pruned ? { pruned } : {}),
    }),
  };
}

/**
 * The error when not even the smallest request (head, newest turn, its tool results shortened) fits
 * by a count that says so: the figures, and the largest part named, in the units of that count.
 */
export function truncatedError({
  request,
  cache,
  limits,
  messages,
  count,
  calibration,
  schemaTokens,
  sources,
}: {
  request: ChatRequest;
  cache: EstimateCache;
  limits: Budget;
  messages: readonly Message[];
  count: RequestCount;
  calibration: Calibration;
  schemaTokens: number;
  sources: readonly SchemaSource[];
}): ContextTruncatedError {
  const details = {
    estimate: count.tokens,
    budget: budgetFor(count, limits),
    window: limits.window,
    reserve: limits.reserve,
    schemaTokens,
  };
  const factor = count.raw > 0 ? count.tokens / count.raw : scalarFactor(calibration);
  const parts = requestParts({
    messages,
    headEnd: splitTurns(messages).head.end,
    schemas: Math.round((cache.tools(request.tools).total + REQUEST_OVERHEAD) * factor),
    tokensOf: (message) => Math.round(cache.message(message).total * factor),
  });
  return new ContextTruncatedError(
    truncatedMessage({ ...details, messages: messages.length, parts, sources }),
    details,
  );
}
