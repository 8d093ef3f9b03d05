/**
 * @module
 * Google Gemini API, Code Assist and Vertex AI.
 */
import { overflowRegex } from '../overflow-regex.js';
import type { OverflowRow } from '../types.js';

export const GOOGLE_ROWS: readonly OverflowRow[] = [
  {
    // Both figures are optional: one variant prints "The input token count exceeds the maximum number
    // of tokens allowed (1048576)." and the CLI prints the limit without parentheses.
    name: 'gemini-input-token-count',
    kind: 'context',
    provider: 'Google Gemini API / Code Assist',
    pattern: overflowRegex(
      String.raw`input token count(?: \((?<input>{N})\))? exceeds the maximum number of tokens allowed(?: \(?(?<window>{N})\)?)?`,
    ),
    example: 'The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).',
    source: 'https://github.com/google-gemini/gemini-cli/issues/6678 (corpus gemini-ctx-01)',
  },
  {
    name: 'vertex-input-token-count-supports-up-to',
    kind: 'context',
    provider: 'Google Vertex AI',
    pattern: overflowRegex(
      'Unable to submit request because the input token count is (?<input>{N}) but model only supports up to (?<window>{N})',
    ),
    example:
      'Unable to submit request because the input token count is 1251952 but model only supports up to 1048576. Reduce the input token count and try again.',
    source: 'https://github.com/google-gemini/gemini-cli/issues/19727',
  },
  {
    // "from 1 (inclusive) to 8193 (exclusive)": the largest accepted value is one less.
    name: 'gemini-max-output-tokens-range',
    kind: 'output_cap',
    provider: 'Google Gemini API / Vertex AI',
    pattern: overflowRegex(
      String.raw`maxOutputTokens value of (?<output>{N}) but the supported range is from 1 \(inclusive\) to (?<output_limit>{N}) \(exclusive\)`,
    ),
    example:
      'Unable to submit request because it has a maxOutputTokens value of 655360 but the supported range is from 1 (inclusive) to 8193 (exclusive). Update the value and try again.',
    source: 'https://github.com/stackblitz-labs/bolt.diy/issues/955 (corpus gemini-output-cap-01)',
    figures: (figures) =>
      figures.outputLimit === undefined ? figures : { ...figures, outputLimit: figures.outputLimit - 1 },
  },
];
