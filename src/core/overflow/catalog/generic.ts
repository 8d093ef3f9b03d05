/**
 * @module
 * Generic wording shared by many providers and clients. Tried last, and weak: without figures they
 * classify only at an unknown status or 400/413/422, and any row that yields figures wins over them.
 */
import { overflowRegex } from '../overflow-regex.js';
import type { OverflowRow } from '../types.js';

export const GENERIC_ROWS: readonly OverflowRow[] = [
  {
    name: 'generic-context-exceeded',
    kind: 'context',
    provider: 'generic',
    pattern: overflowRegex(
      String.raw`\bcontext (?:length|window|size) (?:exceeded|exceeds|overflow)|\b(?:exceeds|exceeded|exceed|is longer than) (?:the |your |this )?(?:model'?s )?(?:maximum |available |configured )?context (?:length|window|size|limit)`,
    ),
    example:
      'WARN goose::agents::truncate: Context length exceeded. Truncation Attempt: 3/3. Error: Context length exceeds limits even after multiple attempts to truncate.',
    source: 'https://github.com/aaif-goose/goose/issues/903 (corpus goose-client-ctx-01)',
    generic: true,
  },
  {
    name: 'generic-token-limit-exceeded',
    kind: 'context',
    provider: 'generic',
    pattern: overflowRegex(
      String.raw`\b(?:exceeds|exceeded) (?:the )?(?:maximum )?token limit|\btoken limit (?:exceeded|reached)`,
    ),
    example: 'Error: Message exceeds token limit.',
    source: 'https://github.com/microsoft/vscode-copilot-release/issues/1456 (corpus vscode-lm-ctx-01)',
    generic: true,
  },
  {
    name: 'generic-maximum-context-length',
    kind: 'context',
    provider: 'generic',
    pattern: overflowRegex(String.raw`\bmaximum context length\b(?: is (?<window>{N}) tokens)?`),
    example: 'maximum context length is 8192 tokens',
    source: 'mudler/nib chat/testdata/overflow/generic-maximum-context-length.json',
    generic: true,
  },
  {
    name: 'generic-prompt-too-long',
    kind: 'context',
    provider: 'generic',
    pattern: overflowRegex(String.raw`\bprompt (?:is )?too long\b`),
    example: 'invalid_request: Prompt is too long',
    source: 'https://github.com/NanmiCoder/cc-haha/issues/860',
    generic: true,
  },
  {
    name: 'generic-too-many-tokens',
    kind: 'context',
    provider: 'generic',
    pattern: overflowRegex(String.raw`\btoo many (?:input )?tokens\b`),
    example: 'llama_tokenize: too many tokens',
    source: 'https://github.com/ollama/ollama/issues/85',
    generic: true,
  },
  {
    name: 'generic-max-tokens-exceeds-output-limit',
    kind: 'output_cap',
    provider: 'generic',
    pattern: overflowRegex(
      String.raw`\bmax(?:_completion)?_tokens exceeds (?:the )?(?:model'?s? )?(?:maximum )?output (?:token )?limit`,
    ),
    example: 'Requested max_tokens exceeds the model output limit',
    source: 'https://github.com/aaif-goose/goose/pull/9831 (corpus goose-synthetic-output-cap-01)',
    generic: true,
  },
];
