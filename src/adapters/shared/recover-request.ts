/**
 * @module
 * The one place the adapters recover from an overflow: core's escalation chain when the package
 * has it, else the simple remedies of each overflow kind.
 */
import * as core from '../../core/index.js';
import {
  type ChatRequest,
  CLAMP_MARGIN,
  type ContextTruncatedError,
  type ContextWindowManager,
  type FitResult,
  type Message,
  type OverflowInfo,
  windowFromOverflow,
} from '../../core/index.js';

/** Sends one summary request with the wrapped model or client, for compaction. */
export type AdapterSummarizer = (
  request: ChatRequest,
  options: { signal?: AbortSignal },
) => Promise<{ text: string; usage?: { promptTokens: number; completionTokens: number } }>;

/** What a recovery decided; `request` is the request to send once more. */
export interface RecoveryResult {
  action: 'lower_max_tokens' | 'lower_output_cap' | 'compacted' | 'truncated' | 'fallback' | 'give_up';
  request?: ChatRequest;
  removed: Message[];
  steps: string[];
  message?: string;
  /** On `give_up` for a request nothing can fit: the terminal error. */
  error?: ContextTruncatedError;
}

/** Inputs of {@link recoverRequest}. */
export interface RecoverRequestOptions {
  /** The fitted request the provider rejected. */
  request: ChatRequest;
  /** The request as the caller made it, before fitting. */
  original: ChatRequest;
  overflow: OverflowInfo;
  manager: ContextWindowManager;
  /** What fitting `original` gave (estimate and window of the rejected request). */
  fit: FitResult;
  summarize?: AdapterSummarizer;
  signal?: AbortSignal;
  summaryMaxTokens?: number;
}

type RecoverFromOverflow = (input: {
  /** The caller's request, whole history included: the chain fits it again. */
  request: ChatRequest;
  overflow: OverflowInfo;
  manager: ContextWindowManager;
  summarize?: AdapterSummarizer;
  signal?: AbortSignal;
  summaryMaxTokens?: number;
}) => Promise<RecoveryResult>;

/** Core's escalation chain, once `src/core/recovery` is exported from core. */
const chain = (core as unknown as { recoverFromOverflow?: RecoverFromOverflow }).recoverFromOverflow;

/**
 * Recovers from an overflow the provider reported for a fitted request, learning the window the
 * error states. Uses core's `recoverFromOverflow` when the package exports it; otherwise:
 * `budget` → `max_tokens = window - input - 512`; `output_cap` → the stated limit; `context` →
 * re-fit the caller's request to what the error taught (the window, and the provider's count of
 * the prompt for calibration). `give_up` carries the reason when no remedy applies; when
 * what the error taught leaves nothing that fits, the re-fit throws `ContextTruncatedError`.
 *
 * @example
 * const result = await recoverRequest({ request: fit.request, original, overflow, manager, fit });
 * if (result.request) await send(result.request);
 */
export async function recoverRequest(options: RecoverRequestOptions): Promise<RecoveryResult> {
  if (chain) {
    const { original, overflow, manager, summarize, signal, summaryMaxTokens } = options;
    return chain({ request: original, overflow, manager, summarize, signal, summaryMaxTokens });
  }
  return simpleRecovery(options);
}

/** Whether recovery goes through core's chain (true) or the adapters' simple remedies. */
export const USES_CORE_RECOVERY: boolean = chain !== undefined;

/**
 * The simple remedies {@link recoverRequest} falls back to without core's chain: learn the window
 * the error states; `budget` → `max_tokens = window - input - 512` (treated as `context` when that
 * leaves nothing); `output_cap` → the stated limit (learned), or for vLLM's served length the room
 * it leaves the prompt; `context` → calibrate on the provider's count of the prompt and re-fit the
 * caller's request (throws `ContextTruncatedError` when nothing fits then).
 */
export function simpleRecovery({
  request,
  original,
  overflow,
  manager,
  fit,
}: RecoverRequestOptions): RecoveryResult {
  const stated = windowFromOverflow(overflow);
  if (stated !== undefined && original.model !== undefined) manager.learnWindow(original.model, stated);
  const input = promptTokensOf(overflow) ?? fit.estimate;
  if (overflow.kind === 'budget') {
    const window = windowFromOverflow(overflow) ?? fit.window;
    const maxTokens = window - input - CLAMP_MARGIN;
    if (maxTokens >= 1)
      return {
        action: 'lower_max_tokens',
        request: { ...request, maxTokens },
        removed: [],
        steps: [
          `max_tokens ${request.maxTokens ?? 'unset'} → ${maxTokens} (window ${window}, prompt ${input})`,
        ],
      };
    return refit({ request, original, overflow, manager, fit });
  }
  if (overflow.kind === 'output_cap') {
    // vLLM states its served length rather than an output limit: the reply must leave the prompt room.
    const limit =
      overflow.outputLimit ??
      (overflow.window === undefined ? undefined : overflow.window - input - CLAMP_MARGIN);
    if (limit !== undefined && limit >= 1 && limit < (request.maxTokens ?? Number.POSITIVE_INFINITY)) {
      if (overflow.outputLimit !== undefined && request.model !== undefined)
        manager.learnOutputCap(request.model, overflow.outputLimit);
      return {
        action: 'lower_output_cap',
        request: { ...request, maxTokens: limit },
        removed: [],
        steps: [`max_tokens ${request.maxTokens ?? 'unset'} → ${limit} (the provider's output limit)`],
      };
    }
    return giveUp(
      `the provider rejected max_tokens ${request.maxTokens ?? 'unset'} as above its output limit without a usable figure (${overflow.pattern}); set outputCap`,
    );
  }
  return refit({ request, original, overflow, manager, fit });
}

/** The `context` remedy: learn what the error states and fit the caller's request again. */
function refit({
  request,
  original,
  overflow,
  manager,
  fit,
}: Omit<RecoverRequestOptions, 'summarize' | 'signal' | 'summaryMaxTokens'>): RecoveryResult {
  const steps: string[] = [];
  const window = manager.windowFor(request.model) ?? fit.window;
  if (window < fit.window) steps.push(`window ${fit.window} → ${window} (learned from the error)`);
  const counted = promptTokensOf(overflow);
  if (counted !== undefined && counted > fit.estimate) {
    // The provider's count of the rejected prompt is a usage report for it: calibration grows toward it.
    manager.observe({ promptTokens: counted });
    steps.push(`calibrated on the provider's count (${counted} prompt tokens, estimated ${fit.estimate})`);
  }
  if (steps.length === 0)
    return giveUp(
      `the provider rejected the request as too long (${overflow.pattern}) without stating a smaller window or the prompt's size; set contextLength to the window the server enforces`,
    );
  const refitted = manager.fit(original);
  const kept = new Set(refitted.request.messages);
  const removed = request.messages.filter((message) => !kept.has(message));
  steps.push(
    `dropped ${refitted.droppedTurns} turns (${removed.length} messages), estimate ${refitted.estimate}`,
  );
  return { action: 'truncated', request: refitted.request, removed, steps };
}

function promptTokensOf(overflow: OverflowInfo): number | undefined {
  if (overflow.units === 'characters') return undefined;
  if (overflow.input !== undefined) return overflow.input;
  if (overflow.total !== undefined && overflow.output !== undefined) return overflow.total - overflow.output;
  return undefined;
}

function giveUp(message: string): RecoveryResult {
  return { action: 'give_up', removed: [], steps: [], message };
}
