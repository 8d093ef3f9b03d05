/**
 * The overflow detection of tools agent builders use instead, reimplemented from what their sources
 * document, for a side-by-side evaluation on the same rows. Each returns only whether a message is
 * an overflow (none of them tells prompt-too-big from prompt-plus-output-too-big or output cap):
 * a detection is scored as `context`.
 */

/**
 * LiteLLM: substring checks on the lowercased provider message that make its exception mapping raise
 * `ContextWindowExceededError` (BerriAI/litellm, litellm/litellm_core_utils/exception_mapping_utils.py
 * and the per-provider branches it dispatches to), as the emulator's LiteLLM profile models them.
 */
export { litellmSeesContextWindow as litellmDetects } from '../src/emulator/index.js';

/**
 * pi (badlogic/pi-mono, packages/ai/src/utils/overflow.ts, `isContextOverflow`): one regular
 * expression per provider wording plus generic fallbacks, and a bare 400/413 "(no body)" as
 * Cerebras sends it. opencode (sst/opencode, packages/opencode/src/provider/error.ts) adapts the same
 * list. Patterns restated from the wordings that file documents.
 */
const PI_PATTERNS: RegExp[] = [
  /prompt is too long/i,
  /input is too long for requested model/i,
  /exceeds the context window/i,
  /input token count.*exceeds the maximum/i,
  /maximum prompt length is \d+/i,
  /reduce the length of the messages/i,
  /maximum context length is \d+ tokens/i,
  /exceeds the limit of \d+/i,
  /exceeds the available context size/i,
  /greater than the context length/i,
  /context window exceeds limit/i,
  /exceeded model token limit/i,
  /too large for model with \d+ maximum context length/i,
  /context[_ ]length[_ ]exceeded/i,
  /too many tokens/i,
  /token limit exceeded/i,
];

export function piDetects(text: string): boolean {
  if (PI_PATTERNS.some((pattern) => pattern.test(text))) return true;
  return /^4(00|13)\s*(status code)?\s*\(no body\)/i.test(text);
}

/**
 * A generic agent list: case-insensitive substrings many smaller agents ship (for example
 * "context_length_exceeded", "maximum context length", "max_tokens", "too many tokens", "prompt is
 * too long", "request too large", "context window", "token limit", "input too long", "reduce the
 * length"), the shape of the lists in matteing/opal's overflow module and similar.
 */
const GENERIC_SUBSTRINGS = [
  'context_length_exceeded',
  'maximum context length',
  'max_tokens',
  'too many tokens',
  'prompt is too long',
  'request too large',
  'context window',
  'token limit',
  'input too long',
  "exceeds the model's maximum",
  'reduce the length',
  'maximum number of tokens',
];

export function genericDetects(text: string): boolean {
  const lower = text.toLowerCase();
  return GENERIC_SUBSTRINGS.some((substring) => lower.includes(substring));
}
