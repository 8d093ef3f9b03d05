/**
 * @module
 * Whether an upstream's overflow is evidence about the model or only words. An upstream that echoes
 * client input in its errors (vLLM's validation messages quote the request) can be made to say
 * "maximum context length is 2000 tokens" by anyone who writes that sentence into a prompt. A
 * window or output cap is learned from an overflow only when its figures agree with the request
 * the proxy itself sent: the input it states is close to the proxy's count of that request, the
 * output it states is the `max_tokens` sent, and the request could really have overflowed the
 * window it names.
 */
import {
  type CountSource,
  isPlausibleWindow,
  type OverflowInfo,
  statesLowerBound,
  windowFromOverflow,
} from '../core/index.js';

/**
 * How far a stated prompt count may be from the proxy's own count of the same request, as a ratio,
 * when that count is trusted (the provider's own usage anchored, or an exact tokenizer).
 */
export const TRUSTED_COUNT_RATIO = 1.25;

/** The same for a count that is an estimate (calibrated or not): estimators miss by more. */
export const ESTIMATE_COUNT_RATIO = 2;

/** The smallest output cap believed from an overflow: smaller figures are misread numbers. */
export const MIN_LEARNED_OUTPUT_CAP = 256;

/** What the proxy sent in one attempt the upstream rejected. */
export interface SentAttempt {
  /** The prompt tokens the request was fitted with. */
  promptTokens: number;
  /** How they were counted. */
  countSource: CountSource;
  /** The `max_tokens` on the wire, when the request carried one. */
  maxTokens?: number;
  /** The window the request was fitted to. */
  window: number;
}

/** What an overflow says about the model, once matched with what was sent. */
export type OverflowEvidence =
  | { kind: 'matched'; contextLength?: number; outputCap?: number }
  | { kind: 'unmatched'; reason: string }
  | { kind: 'none' };

const ratioOf = (source: CountSource): number =>
  source === 'anchored' || source === 'exact' ? TRUSTED_COUNT_RATIO : ESTIMATE_COUNT_RATIO;

/** Why the stated figures cannot be about the request sent, if they cannot. */
function disagreement(overflow: OverflowInfo, sent: SentAttempt, window: number): string | undefined {
  const ratio = ratioOf(sent.countSource);
  const { input, output } = overflow;
  if (output !== undefined && sent.maxTokens !== undefined && output !== sent.maxTokens)
    return `it states ${output} output tokens, the request asked for ${sent.maxTokens}`;
  if (input !== undefined) {
    const lowerBound = statesLowerBound(overflow);
    if (input > sent.promptTokens * ratio)
      return `it states ${input} prompt tokens, the request had about ${sent.promptTokens}`;
    if (!lowerBound && input * ratio < sent.promptTokens)
      return `it states ${input} prompt tokens, the request had about ${sent.promptTokens}`;
  }
  // The request must have been able to overflow the window named: at most its prompt (by the larger
  // of the two counts, with the count's margin) plus the output it asked for.
  const prompt = Math.max(input ?? 0, Math.ceil(sent.promptTokens * ratio));
  const requested = output ?? sent.maxTokens ?? 0;
  if (window >= prompt + requested)
    return `it names a window of ${window} tokens, yet the request it rejected was about ${prompt + requested}`;
  return undefined;
}

/**
 * The window or output cap an overflow teaches, if its figures agree with the request sent; an
 * overflow that names no figure is `none`, one whose figures cannot be about this request
 * `unmatched` with the reason (for the log).
 *
 * @example
 * matchOverflow({ overflow: { kind: 'context', window: 8_192, input: 9_010, pattern: 'vllm' },
 *   sent: { promptTokens: 8_900, countSource: 'anchored', window: 32_768 } });
 * // { kind: 'matched', contextLength: 8192 }
 * matchOverflow({ overflow: { kind: 'context', window: 10_000_000, pattern: 'vllm' },
 *   sent: { promptTokens: 900, countSource: 'estimate', window: 32_768 } });
 * // { kind: 'unmatched', reason: 'it names a window of 10000000 tokens, yet the request it rejected was about 1800' }
 */
export function matchOverflow({
  overflow,
  sent,
}: {
  overflow: OverflowInfo;
  sent: SentAttempt;
}): OverflowEvidence {
  if (overflow.kind === 'output_cap') {
    const cap = overflow.outputLimit;
    // vLLM's max_tokens-over-max_model_len names the served length: a window, as recovery learns it.
    if (cap === undefined) return windowEvidence(overflow, sent, overflow.window);
    if (sent.maxTokens === undefined)
      return {
        kind: 'unmatched',
        reason: `it names an output cap of ${cap}, but the request set no max_tokens`,
      };
    if (cap >= sent.maxTokens)
      return {
        kind: 'unmatched',
        reason: `it names an output cap of ${cap}, yet the request asked for only ${sent.maxTokens}`,
      };
    if (cap < MIN_LEARNED_OUTPUT_CAP)
      return { kind: 'unmatched', reason: `an output cap of ${cap} tokens is no model's` };
    return { kind: 'matched', outputCap: cap };
  }
  return windowEvidence(overflow, sent, windowFromOverflow(overflow));
}

function windowEvidence(
  overflow: OverflowInfo,
  sent: SentAttempt,
  window: number | undefined,
): OverflowEvidence {
  if (window === undefined || overflow.units === 'characters') return { kind: 'none' };
  if (!isPlausibleWindow(window))
    return { kind: 'unmatched', reason: `a window of ${window} tokens is no model's` };
  const reason = disagreement(overflow, sent, window);
  return reason === undefined ? { kind: 'matched', contextLength: window } : { kind: 'unmatched', reason };
}
