/**
 * @module
 * Clients and gateways that rewrite a provider's overflow into their own words.
 */
import { overflowRegex } from '../overflow-regex.js';
import type { OverflowRow } from '../types.js';

export const CLIENT_ROWS: readonly OverflowRow[] = [
  {
    // Used whether or not the input alone exceeds the limit: the figures decide.
    name: 'continue-context-length-exceeded',
    kind: 'context',
    provider: 'Continue CLI (client-side pre-check)',
    pattern: overflowRegex(
      String.raw`Context length exceeded: input \((?<input>{N})\) \+ max_tokens \((?<output>{N})\) = (?<total>{N}) > context_limit \((?<window>{N})\)`,
    ),
    example:
      'Context length exceeded: input (120,500) + max_tokens (8,192) = 128,692 > context_limit (128,000)',
    source:
      'continuedev/continue extensions/cli/src/util/tokenizer.ts (corpus continue-cli-client-budget-01)',
  },
  {
    name: 'litellm-context-window-exceeded-error',
    kind: 'context',
    provider: 'LiteLLM (exception class)',
    pattern: overflowRegex(String.raw`\bContextWindowExceededError\b`),
    example: 'litellm.ContextWindowExceededError: litellm.BadRequestError: the prompt does not fit',
    source: 'mudler/nib chat/testdata/overflow/code-context-window-exceeded.json',
  },
  {
    name: 'codex-ran-out-of-room',
    kind: 'context',
    provider: 'OpenAI Codex CLI',
    pattern: overflowRegex("ran out of room in the model's context window"),
    example:
      "■ Codex ran out of room in the model's context window. Start a new conversation or clear earlier history before retrying.",
    source: 'public Codex fixtures (corpus codex-ctx-02)',
  },
];
