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
      /\bunauthori[sz]ed\b|authentication|invalid[ _]api[ _]key|incorrect api key|permission[ _]denied|(?<![0-9][ _])\bforbidden\b|x-api-key/i,
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
      /\.id'?: string too long|array too long|array_above_max_length|(?:above maximum|below minimum) value|unsupported parameter|is not supported|content[ _]filter|content management policy|not found\b|\b(?:must|should) be (?:greater|larger) than\b|\bbudget_tokens\b/i,
  },
  {
    // Limits on images and documents: pixels a side, images or PDF pages a request. Anthropic's "At
    // least one of the image dimensions exceed max allowed size: 8000 pixels", vLLM's "At most 5
    // image(s) may be provided in one request", "A maximum of 100 PDF pages may be provided".
    name: 'near-miss-media',
    words:
      /\bpixels?\b|\b\d+ ?px\b|\bimage (?:count|dimensions?)\b|too many images|too much media|\bimages?\b[^.]{0,40}\b(?:at most|maximum of|max is|limit)\b|\b(?:at most|maximum of) \d+ (?:image|PDF page|page)s?\b|\b\d+ images?\b|\bPDF (?:pages?|too large)\b/i,
  },
  {
    // A client's cap on one tool result or one file read, enforced before anything is sent: Claude
    // Code's "MCP tool \"x\" response (26638 tokens) exceeds maximum allowed tokens (25000)" and
    // "File content (28375 tokens) exceeds maximum allowed tokens (25000). Please use offset and
    // limit parameters…". The model's window is not involved.
    name: 'near-miss-tool-output',
    words:
      /\bMCP tool\b|\btool (?:result|response|output)s?\b[^.]{0,60}\b(?:exceed|too (?:large|long)|truncat|maximum)|\bfile content \(|\bresult \([\d,]+ (?:characters|tokens)\)|offset and limit parameters|use pagination|output has been saved to/i,
  },
  {
    // Warnings and configuration notices: a tokenizer's model_max_length (Hugging Face "Token indices
    // sequence length is longer than the specified maximum sequence length for this model (2409 >
    // 2048). Running this sequence through the model will result in indexing errors"), generate()'s
    // "friendly reminder", llama.cpp's and Ollama's load-time notes on n_ctx_train, vLLM's engine
    // start, and a server that truncated the input itself and answered.
    name: 'near-miss-advisory',
    words:
      /indexing errors|token indices sequence length|friendly reminder|may observe exceptions|\bn_ctx_train\b|training context|will not be utilized|gpu_memory_utilization|when initializing the engine|requested context size too large|\btruncating (?:the )?(?:input|prompt)\b|\b(?:input|prompt|chunk|max_new_tokens)(?: is| was)? truncated\b|\btruncated (?:before|to)\b/i,
  },
];

/**
 * Statuses that are never an overflow, whatever the body says. 403 is not one: Zed's model proxy
 * answers "http_403 Forbidden, message: Context window exceeded: 306234 tokens exceeds the limit of
 * 272000 tokens" (zed-industries/zed#62362); a 403 without figures stays weak evidence, which does
 * not classify at 403.
 */
export const NEAR_MISS_STATUSES: readonly number[] = [401, 404, 429];

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
    String.raw`\b(?:prompt|input|inputs|request|message|messages|conversation|chat session|text|tokens|context)(?: size| length| tokens?)?(?: \([^)]{0,30}\))?(?: is| are)? (?:too (?:long|large|big)|exceeds?)\b`,
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
