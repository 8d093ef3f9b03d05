/**
 * @module
 * Anthropic Messages API (direct, Bedrock, Vertex, and the many clients that print it).
 */
import { overflowRegex } from '../overflow-regex.js';
import type { OverflowRow } from '../types.js';

export const ANTHROPIC_ROWS: readonly OverflowRow[] = [
  {
    name: 'anthropic-prompt-too-long',
    kind: 'context',
    provider: 'Anthropic',
    pattern: overflowRegex('prompt is too long: (?<input>{N}) tokens > (?<window>{N}) maximum'),
    example: 'prompt is too long: 208310 tokens > 200000 maximum',
    source: 'https://github.com/anthropics/claude-code/issues/12186 (corpus anthropic-prompt-too-long-03)',
  },
  {
    name: 'anthropic-input-and-max-tokens',
    kind: 'budget',
    provider: 'Anthropic',
    pattern: overflowRegex(
      String.raw`input length and \x60?max_tokens\x60? exceed context limit: (?<input>{N}) \+ (?<output>{N}) > (?<window>{N})`,
    ),
    example:
      'input length and `max_tokens` exceed context limit: 198214 + 8192 > 200000, decrease input length or `max_tokens` and try again',
    source: 'https://github.com/continuedev/continue/issues/6136 (corpus anthropic-budget-09)',
  },
  {
    name: 'anthropic-max-tokens-above-output-maximum',
    kind: 'output_cap',
    provider: 'Anthropic',
    pattern: overflowRegex(
      'max_tokens: (?<output>{N}) > (?<output_limit>{N}), which is the maximum allowed number of output tokens',
    ),
    example:
      'max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-5',
    source:
      "public Rust test fixture 'output_token_cap_error_is_not_context_exceeded' (corpus anthropic-output-cap-03)",
  },
  {
    // HTTP 413 with type invalid_request_error: the window, unlike request_too_large (bytes).
    name: 'anthropic-request-size-exceeds-window',
    kind: 'context',
    provider: 'Anthropic',
    pattern: overflowRegex('Request size exceeds model context window'),
    example: 'Request size exceeds model context window',
    source: 'https://github.com/anthropics/claude-code/issues/6380 (corpus anthropic-413-ctx-01)',
  },
  {
    // A 200 response whose generation ran into the window: the prompt fitted, prompt + output did not.
    name: 'anthropic-stop-reason-window-exceeded',
    kind: 'budget',
    provider: 'Anthropic (stop_reason), z.ai (finish_reason)',
    pattern: overflowRegex(String.raw`\bmodel_context_window_exceeded\b`),
    example: '"stop_reason":"model_context_window_exceeded"',
    source: "Anthropic docs 'handling stop reasons' (corpus anthropic-stop-window-exceeded-01)",
  },
];
