/**
 * @module
 * The keys a model id is matched by. Providers spell the same model many ways:
 * `openai/gpt-4o` (OpenRouter, LiteLLM), `anthropic.claude-3-5-sonnet-20241022-v2:0` (Bedrock),
 * `claude-sonnet-4@20250514` (Vertex), `anthropic/claude-3.5-sonnet` against
 * `claude-3-5-sonnet-20241022`, `gpt-4o-2024-08-06` against `gpt-4o`, `GPT-4o` against `gpt-4o`.
 */

/** Route tags OpenRouter and Ollama append (`:free`, `:latest`…); they do not change the window. */
const ROUTE_TAG = /:(free|latest|beta|thinking|extended|nitro|floor|online|exacto)$/;

/** Bedrock vendor and cross-region prefixes: `us.anthropic.claude-…`, `meta.llama3-…`. */
const BEDROCK_PREFIX =
  /^(?:(?:us|eu|apac|global|us-gov)\.)?(?:anthropic|meta|amazon|cohere|mistral|ai21|deepseek|qwen|openai)\./;

/** Bedrock version suffixes: `-v1:0`, `-v2:0`, `-v1`. */
const BEDROCK_VERSION = /-v\d+(?::\d+)?$/;

/** Release suffixes: `-20250929`, `-2024-08-06`, `-0613` / `-2507` (MMDD, YYMM), `-latest`. */
const RELEASE_SUFFIX = /-(?:\d{8}|\d{4}-\d{2}-\d{2}|\d{4}|latest)$/;

/**
 * The exact key of a model id: lower case, without provider path (`openai/`, `openrouter/anthropic/`),
 * route tags, Bedrock vendor prefixes and version suffixes; `@` and `.` read as `-` so that
 * `claude-3.5-sonnet` and `claude-3-5-sonnet` meet.
 *
 * @example
 * modelKey('openrouter/anthropic/Claude-3.5-Sonnet:beta'); // 'claude-3-5-sonnet'
 */
export function modelKey(id: string): string {
  let key = id.trim().toLowerCase();
  key = key.replace(ROUTE_TAG, '');
  key = key.slice(key.lastIndexOf('/') + 1);
  key = key.replace(BEDROCK_PREFIX, '').replace(BEDROCK_VERSION, '');
  return key.replace(/[@.]/g, '-');
}

/**
 * The alias key: the exact key without its release suffix, so a dated snapshot meets its alias.
 *
 * @example
 * aliasKey('claude-sonnet-4-5-20250929'); // 'claude-sonnet-4-5'
 * aliasKey('gpt-4o-2024-08-06'); // 'gpt-4o'
 */
export function aliasKey(id: string): string {
  const key = modelKey(id);
  const stripped = key.replace(RELEASE_SUFFIX, '');
  return stripped === '' ? key : stripped;
}

/** The provider an id names in its path (`openai/gpt-4o` → `openai`), if any. */
export function providerPrefix(id: string): string | undefined {
  const segments = id.trim().toLowerCase().split('/');
  // `openrouter/anthropic/claude…`: the vendor is the segment right before the model.
  return segments.length >= 2 ? segments[segments.length - 2] : undefined;
}
