/**
 * @module
 * Whether what `spillway classify` was given can be a provider's rejection at all. `none` means
 * "not an overflow"; a person who pipes in a reply, a request or an empty file should hear that
 * this was not an error body, rather than read `none` as "this error is not an overflow".
 */

/** Words a rejection uses somewhere (an HTTP status, an error type, a limit, a refusal). */
const ERROR_WORDS =
  /error|exception|invalid|exceed|too (long|large|many)|limit|maximum|overflow|context|token|fail|denied|refus|reject|not (found|allowed|supported)|unavailable|overload|bad request|forbidden|unauthori[sz]ed|quota|\b[45]\d\d\b/i;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a JSON object that carries no error is, when it is recognizably something else. */
function objectShape(value: Record<string, unknown>): string {
  if (Array.isArray(value.choices) || Array.isArray(value.candidates) || Array.isArray(value.output))
    return "a model's reply";
  if (value.role === 'assistant' && value.content !== undefined) return "a model's reply";
  if (Array.isArray(value.messages) || value.input !== undefined || Array.isArray(value.contents))
    return 'a request';
  return 'a JSON object with no error in it';
}

/**
 * Why `body` is not an error body, or `undefined` when it may be one: empty input, a 2xx status, a
 * model's reply or a request (JSON without an `error`), or text that names no error at all.
 *
 * @example
 * notAnErrorBody('{"choices":[{"message":{"role":"assistant","content":"hi"}}]}'); // "the input is a model's reply, …"
 */
export function notAnErrorBody(body: string, status?: number): string | undefined {
  const said = (what: string) =>
    `the input is ${what}, not an error body; classify reads what a provider rejected a request with`;
  if (status !== undefined && status >= 200 && status < 300)
    return said(`an HTTP ${status} answer (a success)`);
  const text = body.trim();
  if (text === '') return said('empty');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return ERROR_WORDS.test(text) ? undefined : said('text that names no error');
  }
  if (!isRecord(value)) return ERROR_WORDS.test(text) ? undefined : said('JSON that names no error');
  if (value.error !== undefined || value.errors !== undefined || value.type === 'error') return undefined;
  if (value.detail !== undefined || value.message !== undefined) return undefined;
  return said(objectShape(value));
}
