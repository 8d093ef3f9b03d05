/**
 * @module
 * The generation APIs the proxy knows but does not fit. Their requests go upstream unchanged, and
 * every answer says so (`x-spillway-fit: passthrough; api=…`, a log line and a counter), so that a
 * client pointed at Spillway is never unprotected without a word. The proxy names them once at
 * start, beside the APIs it fits.
 */

/** The APIs the proxy fits, as `METHOD path`. */
export const FITTED_APIS = [
  'POST /v1/chat/completions',
  'POST /v1/responses',
  'POST /v1/responses/input_tokens',
  'POST /v1/messages',
  'POST /v1/messages/count_tokens',
  'POST /v1beta/models/{model}:generateContent',
  'POST /v1beta/models/{model}:streamGenerateContent',
  'POST /v1beta/models/{model}:countTokens',
] as const;

/** A generation API passed through unfitted: its name and the paths it answers. */
export interface UnfittedApi {
  /** The `api=` value of `x-spillway-fit`. */
  api: string;
  /** What it is, for the start-up notice. */
  description: string;
  matches(method: string, pathname: string): boolean;
}

/** Generation APIs sent upstream unfitted. */
export const UNFITTED_APIS: readonly UnfittedApi[] = [
  {
    // The Gemini API's own paths (`/v1beta/models/{model}:…`) are fitted; Vertex AI's longer ones
    // (`/v1/projects/…/publishers/google/models/{model}:…`) are not.
    api: 'gemini',
    description: 'Vertex AI generateContent / streamGenerateContent (projects/…/models/…)',
    matches: (method, pathname) =>
      method === 'POST' && /\/models\/[^/]+:(?:generateContent|streamGenerateContent)$/.test(pathname),
  },
  {
    api: 'completions',
    description: 'OpenAI legacy text completions (POST /v1/completions)',
    matches: (method, pathname) => method === 'POST' && pathname === '/v1/completions',
  },
  {
    api: 'ollama',
    description: "Ollama's native POST /api/chat and /api/generate",
    matches: (method, pathname) =>
      method === 'POST' && (pathname === '/api/chat' || pathname === '/api/generate'),
  },
];

/** The unfitted generation API a request calls, if any. */
export function unfittedApiOf(method: string, pathname: string): UnfittedApi | undefined {
  return UNFITTED_APIS.find((api) => api.matches(method, pathname));
}

/** The `x-spillway-fit` value of a request to an unfitted API. */
export function passthroughHeader(api: UnfittedApi): string {
  return `passthrough; api=${api.api}`;
}
