/**
 * @module
 * A 2xx answer is never an overflow. The request was served: a warning the server logged or put
 * beside the reply (a prompt it truncated, a reply cut at `max_tokens`, a stop reason that names the
 * window) leaves nothing to recover, and cutting the conversation for it would lose context for
 * nothing. The one exception is an error carried inside the 2xx itself, because the status was sent
 * before the error happened or the server wraps errors in a 200: an SSE error event (OpenRouter's
 * error chunk, the Responses API's `response.failed`, Anthropic's `event: error`) or an error
 * envelope in place of an answer (`{"error":{…}}`, `{"type":"error",…}`, vLLM's `"object":"error"`).
 */
import { SSE_DATA_LINE } from './scan-text.js';

/** `pattern` of a 2xx answer that carries no error of its own. */
export const SUCCESS_STATUS_PATTERN = 'success-status';

/** The statuses of a served request. */
export function isSuccessStatus(status: number | undefined): boolean {
  return status !== undefined && status >= 200 && status <= 299;
}

/**
 * An error envelope in text that is not one JSON value (an SDK prefix, a Python repr, a log line):
 * an `error` key holding an object or a message, or a `type` / `object` that says error.
 */
const ERROR_ENVELOPE =
  /["']error["']\s*:\s*["'{]|["'](?:type|object)["']\s*:\s*["'](?:error|response\.failed)["']/i;

/** SSE event names that are an error: `error`, `response.failed`, `response.error`. */
const ERROR_EVENT = /error|fail/i;

/** Keys of a successful answer in the wire formats Spillway relays (OpenAI, Anthropic, Gemini, Ollama, Responses). */
const ANSWER_KEYS = ['choices', 'candidates', 'content', 'output', 'delta', 'response', 'done'] as const;

type Bag = Record<string, unknown>;

function isBag(value: unknown): value is Bag {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPresent(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

/** A parsed JSON value that is an error: an envelope, a failed response, or a bare `{message}` error object. */
function isErrorValue(value: unknown, depth = 0): boolean {
  if (Array.isArray(value)) return depth < 2 && value.some((item) => isErrorValue(item, depth + 1));
  if (!isBag(value)) return false;
  if (isPresent(value.error) || isPresent(value.errors)) return true;
  if (value.type === 'error' || value.object === 'error') return true;
  if (typeof value.type === 'string' && /\.(?:failed|error)$/.test(value.type)) return true;
  if (depth < 2 && isBag(value.response) && isErrorValue(value.response, depth + 1)) return true;
  // `{"message": "…"}` alone (AWS, some gateways) is an error object; an answer has answer keys.
  return typeof value.message === 'string' && !ANSWER_KEYS.some((key) => key in value);
}

function parsedJson(text: string): { value: unknown } | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  try {
    return { value: JSON.parse(trimmed) };
  } catch {
    return undefined;
  }
}

/** Whether one piece of text (a whole body or one SSE payload) holds an error. */
function textCarriesError(text: string): boolean {
  const parsed = parsedJson(text);
  return parsed ? isErrorValue(parsed.value) : ERROR_ENVELOPE.test(text);
}

/** Whether an SSE stream has an error event: a named one, or a data payload that is an error. */
function streamCarriesError(text: string): boolean {
  let event = '';
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '') event = '';
    else if (trimmed.startsWith('event:')) {
      event = trimmed.slice(6).trim();
      if (ERROR_EVENT.test(event)) return true;
    } else if (trimmed.startsWith('data:') && textCarriesError(trimmed.slice(5))) return true;
  }
  return false;
}

/** Inputs of {@link isSuccessfulAnswer}. */
export interface SuccessfulAnswerOptions {
  /** The HTTP status given with the answer, or found on the error that carried it. */
  status: number | undefined;
  /** The raw (capped, not normalized) text of the answer. */
  text: string;
}

/**
 * Whether an answer is a served request: a 2xx status and no error carried inside it. Then it is
 * never an overflow, whatever its text says about tokens or windows.
 *
 * @example
 * isSuccessfulAnswer({ status: 200, text: 'WARNING scheduler.py:196] Input prompt (2716 tokens) is too long' }); // true
 * isSuccessfulAnswer({ status: 200, text: 'data: {"error":{"message":"context length exceeded"}}\n\n' }); // false
 */
export function isSuccessfulAnswer({ status, text }: SuccessfulAnswerOptions): boolean {
  if (!isSuccessStatus(status)) return false;
  return SSE_DATA_LINE.test(text) ? !streamCarriesError(text) : !textCarriesError(text);
}
