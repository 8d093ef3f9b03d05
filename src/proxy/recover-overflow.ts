/**
 * @module
 * What the proxy does when the upstream rejects a fitted request as too long: core's
 * `recoverFromOverflow` (lower `max_tokens`, lower the output cap, or the escalation chain of
 * compaction with the upstream model as summarizer, a smaller kept tail, forced prune, hard
 * truncation and the non-LLM fallback), applied once.
 */
import {
  type ChatRequest,
  type Message,
  type OverflowInfo,
  type RecoveryAction,
  recoverFromOverflow,
  type Summarizer,
  windowFromOverflow,
} from '../core/index.js';
import { droppedTurns, replyReserve, type UpstreamFit } from './fit-for-upstream.js';
import type { LearnedModelLimits } from './proxy-state.js';

/** The outcome of {@link recoverUpstreamOverflow}. */
export interface ProxyRecoveryResult {
  action: RecoveryAction;
  /** The request to send once more (absent on `give_up`). */
  retry?: UpstreamFit;
  /** The history recovery continued with, when it compacted or truncated it. */
  messages?: Message[];
  /** Messages recovery took out of the history. */
  removed: Message[];
  steps: string[];
  /** Why nothing could be sent, on `give_up`. */
  message?: string;
  /** Limits the upstream stated, to remember for the model. */
  learned: LearnedModelLimits;
}

/** Inputs of {@link recoverUpstreamOverflow}. */
export interface RecoverUpstreamOverflowOptions {
  /** The rejected attempt; its manager fitted it, and recovery fits its `source` again. */
  sent: UpstreamFit;
  overflow: OverflowInfo;
  summarize?: Summarizer;
  summaryMaxTokens?: number;
  signal?: AbortSignal;
}

/**
 * Recovers from one upstream overflow with core's `recoverFromOverflow`, on the manager that fitted
 * the rejected attempt (so the window it states is learned there, and the retry keeps the sticky
 * compression levels).
 *
 * @example
 * const result = await recoverUpstreamOverflow({ sent, overflow, summarize });
 * if (result.retry) send(result.retry.request);
 */
export async function recoverUpstreamOverflow({
  sent,
  overflow: rejection,
  summarize,
  summaryMaxTokens,
  signal,
}: RecoverUpstreamOverflowOptions): Promise<ProxyRecoveryResult> {
  const { manager, source } = sent;
  const model = source.model;
  // vLLM's "max_tokens=X cannot be greater than max_model_len=W" is classified output_cap with the
  // served length as its figure: max_tokens alone is over the window. For recovery that is a budget
  // overflow in a window of W (lower max_tokens), not an output cap of W to remember.
  const overflow: OverflowInfo =
    rejection.kind === 'output_cap' && rejection.outputLimit === undefined && rejection.window !== undefined
      ? { ...rejection, kind: 'budget' }
      : rejection;
  const stated = windowFromOverflow(overflow);
  // The reply reserve is sized for the window the retry is fitted to: a max_tokens made for a larger
  // window would leave a smaller one no room. An output-cap rejection needs the max_tokens sent.
  let maxTokens = sent.request.maxTokens;
  if (overflow.kind !== 'output_cap' && maxTokens !== undefined && sent.reserve === undefined) {
    const window = Math.min(sent.window, stated ?? sent.window);
    const limit = replyReserve({ window, requested: sent.requested, outputCap: sent.outputCap });
    if (limit !== undefined) maxTokens = Math.min(maxTokens, limit);
  }
  const rejected: ChatRequest = { ...sent.request };
  if (maxTokens !== undefined) rejected.maxTokens = maxTokens;
  const result = await recoverFromOverflow({
    request: rejected,
    history: source.messages,
    overflow,
    manager,
    ...(summarize ? { summarize } : {}),
    ...(summaryMaxTokens === undefined ? {} : { summaryMaxTokens }),
    ...(signal ? { signal } : {}),
  });
  const learned: LearnedModelLimits = {};
  if (stated !== undefined) learned.contextLength = stated;
  const cap = model === undefined ? undefined : manager.state.learnedOutputCaps?.[model];
  if (cap !== undefined) learned.outputCap = cap;
  const base = {
    action: result.action,
    removed: result.removed,
    steps: result.steps,
    learned,
    ...(result.message === undefined ? {} : { message: result.message }),
    ...(result.messages === undefined ? {} : { messages: result.messages }),
  };
  if (!result.request || result.action === 'give_up') return base;
  const retry = result.request;
  if (retry.maxTokens !== undefined) retry.maxTokensField ??= source.maxTokensField ?? 'max_tokens';
  const measure = manager.measure(retry);
  return {
    ...base,
    retry: {
      ...sent,
      request: retry,
      estimate: measure.estimate,
      budget: measure.budget,
      window: measure.window,
      droppedTurns: droppedTurns(source.messages, retry.messages),
      unchanged: false,
    },
  };
}
