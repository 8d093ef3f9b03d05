/**
 * @module
 * The words that decide a rejection no figure decides, and the gates that keep near misses at `none`:
 * rate limits and quotas counted in tokens, auth, byte-size limits, overloads, a reply cut at
 * `max_tokens`, parameter validation. Gates are checked first: a throttling message that says
 * "Limit 30000, Requested 31538" or "too many tokens" is never an overflow.
 */
import type { OverflowKind } from '../types.js';

/** One near-miss gate: a name reported as the result's `pattern`, and the words that open it. */
interface Gate {
  name: string;
  words: RegExp;
}

/** The gate of a reply cut at its output limit (`finish_reason: length`): the request was served. */
export const OUTPUT_TRUNCATED_GATE = 'near-miss-output-truncated';

/** Near misses, checked before any figure. Each names what it keeps out. */
export const NEAR_MISS_GATES: readonly Gate[] = [
  {
    name: 'near-miss-rate-limit',
    words:
      /\brate[ _-]?limit|\btoo many requests\b|\bper (?:min(?:ute)?|hour|day)\b|\b[TR]PM\b|\bthrottl|please wait before|try again in \d/i,
  },
  {
    name: 'near-miss-quota',
    words: /\bquota\b|insufficient_quota|\bbilling\b|credit balance|purchase credits|\bpayment required\b/i,
  },
  {
    name: 'near-miss-auth',
    words:
      /\bunauthori[sz]ed\b|authentication|invalid[ _]api[ _]key|incorrect api key|permission[ _]denied|\bforbidden\b|x-api-key/i,
  },
  {
    name: 'near-miss-byte-size',
    words:
      /\bbytes?\b|\bpayload\b|\bbody size\b|request_too_large|entity too large|\bmaximum size\b(?![^.]{0,24}\btokens)/i,
  },
  {
    name: 'near-miss-overloaded',
    words: /\boverloaded\b|high demand|resource exhausted|\bunavailable\b|try again later/i,
  },
  {
    name: OUTPUT_TRUNCATED_GATE,
    words:
      /length limit was reached|LengthFinishReason|finish_reason\W{0,3}length\b|\b(?:response|reply|output) (?:was )?(?:truncated|exceeded)\b/i,
  },
  {
    name: 'near-miss-validation',
    words:
      /\.id'?: string too long|array too long|array_above_max_length|(?:above maximum|below minimum) value|unsupported parameter|is not supported|content[ _]filter|content management policy|not found\b/i,
  },
];

/** Statuses that are never an overflow, whatever the body says. */
export const NEAR_MISS_STATUSES: readonly number[] = [401, 403, 404, 429];

/**
 * What an overflow is about: tokens, the context, the prompt or its length. A text with none of these
 * words (an image size, a temperature out of range, a file too large) is not an overflow, whatever
 * its figures and verbs.
 */
export const TOPIC_WORDS =
  /tokens?\b|context|n_ctx|prompt|\binputs?\b|messages|max_model_len|sequence length|max(?:imum)? ?length|kv size|completion/i;

/** The gate a text opens, if any. */
export function nearMissGate(text: string): string | undefined {
  return NEAR_MISS_GATES.find((gate) => gate.words.test(text))?.name;
}

/** A finish or stop reason that says generation ran into the window: the prompt had fitted. */
const BUDGET_WORDS = /\b(?:stop|finish)_reason\W{0,4}(?:model_)?context_window_exceeded\b/i;

/** The requested output over the model's output limit. */
const OUTPUT_CAP_WORDS =
  /\bmax(?:_completion|_new|_output)?_tokens\b[^.]{0,40}?\b(?:exceeds?|too large|greater than|must be (?:<=|less than))|\boutput (?:token )?limit\b|\bmaxOutputTokens\b/i;

/**
 * The prompt or the request over the window, in any of the ways servers say it: the context named
 * with an overflow verb (`context length exceeded`, `context_window_exceeded`, `ContextWindowExceededError`,
 * `exceeds the available context size`, `larger than the context window`), the prompt named with a
 * size verb (`prompt is too long`, `input prompt is too big compared to KV size`, `Request input
 * tokens exceed model token limit`), or a request to shorten the messages.
 */
const CONTEXT_WORDS = new RegExp(
  [
    String.raw`\bcontext[\s_-]*(?:length|window|size|limit)?[\s_-]*(?:has been |is )?(?:exceeded|exceeds|overflows?)`,
    String.raw`\b(?:exceed(?:s|ed)?|exhausted|(?:longer|larger|greater|bigger) than|out of room in)(?: (?:the|your|this|model'?s?|available|maximum|configured|allowed|current))* (?:context|token limit|max(?:imum)? (?:length|context)|kv size|input length|sequence length|model token)`,
    String.raw`\b(?:prompt|input|inputs|request|message|messages|conversation|chat session|text|tokens)(?: size| length| tokens?)?(?: \([^)]{0,30}\))?(?: is| are)? (?:too (?:long|large|big)|exceeds?)\b`,
    String.raw`\btoo many (?:input )?tokens\b|\breduce the length of the (?:messages|prompt|input)|\bmax(?:imum)? length exceeded`,
  ].join('|'),
  'i',
);

/**
 * The kind the words alone say, or `undefined` when they say nothing of an overflow. Used when no
 * figure decides.
 */
export function kindFromWords(text: string): Exclude<OverflowKind, 'none'> | undefined {
  if (BUDGET_WORDS.test(text)) return 'budget';
  if (CONTEXT_WORDS.test(text)) return 'context';
  if (OUTPUT_CAP_WORDS.test(text)) return 'output_cap';
  return undefined;
}
