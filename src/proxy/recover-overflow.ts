/**
 * @module
 * What the proxy does when the upstream rejects a fitted request as too long: the remedy for each
 * overflow kind, applied once. This is the proxy's one recovery entry point; the full escalation
 * chain (compaction with the upstream model as summarizer) plugs in here.
 */
import {
  type ChatRequest,
  CLAMP_MARGIN,
  ContextTruncatedError,
  createCalibration,
  type Message,
  MIN_CLAMPED_OUTPUT,
  type OverflowInfo,
  windowFromOverflow,
} from '../core/index.js';
import { fitForUpstream, type UpstreamFit } from './fit-for-upstream.js';
import type { LearnedModelLimits } from './proxy-state.js';

/** What recovery did, in the shape of core's `RecoveryResult`. */
export type ProxyRecoveryAction =
  | 'lower_max_tokens'
  | 'lower_output_cap'
  | 'refit'
  | 'compacted'
  | 'truncated'
  | 'fallback'
  | 'give_up';

/** The outcome of {@link recoverOverflow}. */
export interface ProxyRecoveryResult {
  action: ProxyRecoveryAction;
  /** The request to send once more (absent on `give_up`). */
  retry?: UpstreamFit;
  /** Messages recovery took out of the history (compaction), kept for the caller. */
  removed: Message[];
  steps: string[];
  /** Why nothing could be sent, on `give_up`. */
  message?: string;
  /** Limits the upstream stated, to remember for the model. */
  learned: LearnedModelLimits;
}

/** Inputs of {@link recoverOverflow}. */
export interface RecoverOverflowOptions {
  /** The client's request as fitting started from (a stored prefix already applied). */
  request: ChatRequest;
  /** The rejected attempt. */
  sent: UpstreamFit;
  overflow: OverflowInfo;
  outputCap?: number;
  reserve?: number;
}

/** Without a stated window, a rejected prompt is refitted to this share of its own estimate. */
export const UNSTATED_WINDOW_SHARE = 0.75;

function withMaxTokens(fit: UpstreamFit, maxTokens: number): UpstreamFit {
  const request: ChatRequest = {
    ...fit.fit.request,
    maxTokens,
    maxTokensField: fit.fit.request.maxTokensField ?? 'max_tokens',
  };
  return { ...fit, fit: { ...fit.fit, request }, unchanged: false };
}

/**
 * Recovers from one upstream overflow:
 * - `budget`: retry with `max_tokens = window - input - 512`, the input being the larger of the
 *   error's figure and Headroom's estimate (vLLM 0.2x reports a lower bound); never touch the
 *   history. When that leaves fewer than 1,024 tokens, handle it as `context`.
 * - `output_cap`: lower `max_tokens` to the stated limit (never raise it), and remember the cap.
 * - `context`: remember the stated window, raise the calibration to the stated prompt size, and
 *   refit, which drops the oldest whole turns; without figures, refit to three quarters of the
 *   rejected estimate. Nothing smaller to send (or nothing that fits) gives up with the reason.
 *
 * @example
 * const result = recoverOverflow({ request, sent, overflow: classifyOverflow({ status, body }) });
 * if (result.retry) send(result.retry.fit.request);
 */
export function recoverOverflow({
  request,
  sent,
  overflow,
  outputCap,
  reserve,
}: RecoverOverflowOptions): ProxyRecoveryResult {
  const steps: string[] = [];
  const learned: LearnedModelLimits = {};
  const stated = windowFromOverflow(overflow);
  if (stated !== undefined) learned.contextLength = stated;
  const { fit } = sent;
  const requested = fit.request.maxTokens;

  if (overflow.kind === 'output_cap') {
    const limit = overflow.outputLimit ?? overflow.window;
    if (limit === undefined || (requested !== undefined && limit >= requested))
      return {
        action: 'give_up',
        removed: [],
        steps: ['output_cap: no lower limit stated'],
        learned,
        message: `the upstream rejected max_tokens ${requested ?? '(none)'} as above its output limit without stating a lower one`,
      };
    // vLLM states its served length here, not an output cap: leave the prompt its room as well.
    const room = overflow.outputLimit === undefined ? limit - fit.estimate - CLAMP_MARGIN : limit;
    const maxTokens = Math.max(1, Math.min(limit, room));
    if (overflow.outputLimit !== undefined) learned.outputCap = overflow.outputLimit;
    steps.push(`output_cap: max_tokens ${requested} -> ${maxTokens}`);
    return { action: 'lower_output_cap', retry: withMaxTokens(sent, maxTokens), removed: [], steps, learned };
  }

  if (overflow.kind === 'budget') {
    const window = overflow.window ?? fit.window;
    const input = Math.max(overflow.input ?? 0, fit.estimate);
    const maxTokens = window - input - CLAMP_MARGIN;
    if (maxTokens >= MIN_CLAMPED_OUTPUT && (requested === undefined || maxTokens < requested)) {
      steps.push(`budget: max_tokens ${requested} -> ${maxTokens}`);
      return {
        action: 'lower_max_tokens',
        retry: withMaxTokens(sent, maxTokens),
        removed: [],
        steps,
        learned,
      };
    }
    steps.push(`budget: ${Math.max(0, maxTokens)} tokens left for the reply; handled as context`);
  }

  // A stated window above the one fitted to is learned for later requests, but this retry cannot
  // be larger than the rejected one.
  const window = Math.min(fit.window, stated ?? Math.floor(fit.estimate * UNSTATED_WINDOW_SHARE));
  const calibration = sent.manager.state.calibration;
  const factor =
    overflow.input !== undefined && overflow.input > fit.estimate && fit.breakdown.total > 0
      ? Math.max(calibration.factor, overflow.input / fit.breakdown.total)
      : calibration.factor;
  try {
    const retry = fitForUpstream({
      request,
      contextLength: window,
      ...(outputCap === undefined ? {} : { outputCap }),
      ...(reserve === undefined ? {} : { reserve }),
      calibration: { ...createCalibration(), ...calibration, factor },
      // The compression levels the rejected attempt reached are sticky: the retry starts from them.
      managerState: sent.manager.state as unknown as Record<string, unknown>,
    });
    const before = fit.request.messages.length;
    const after = retry.fit.request.messages.length;
    if (after >= before && retry.fit.estimate >= fit.estimate) {
      return {
        action: 'give_up',
        removed: [],
        steps: [...steps, `context: refit to ${window} tokens sends nothing smaller`],
        learned,
        message: `the upstream rejected the request as too long for its window${stated === undefined ? '' : ` of ${stated} tokens`}, and the smallest request Headroom can build (the head and the newest turn) is what was sent; shorten the system prompt, the first user message or the newest tool output`,
      };
    }
    steps.push(`context: refit to ${window} tokens, ${retry.fit.droppedTurns} turns pruned`);
    return { action: 'refit', retry, removed: [], steps, learned };
  } catch (error) {
    if (!ContextTruncatedError.isInstance(error)) throw error;
    return {
      action: 'give_up',
      removed: [],
      steps: [...steps, 'context: nothing fits'],
      learned,
      message: error.message,
    };
  }
}
