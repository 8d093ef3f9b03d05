/**
 * @module
 * Hosted APIs with wording of their own: Bedrock, Mistral, xAI, Groq, Cerebras, GitHub Copilot,
 * Moonshot (Kimi), Cohere, Alibaba DashScope (Qwen), z.ai (GLM), MiniMax.
 */
import { overflowRegex } from '../overflow-regex.js';
import type { OverflowRow } from '../types.js';

export const HOSTED_API_ROWS: readonly OverflowRow[] = [
  {
    name: 'bedrock-max-tokens-exceeds-model-limit',
    kind: 'output_cap',
    provider: 'AWS Bedrock',
    pattern: overflowRegex('maximum tokens you requested exceeds? the model limit of (?<output_limit>{N})'),
    example:
      'The maximum tokens you requested exceeds the model limit of 2048. Try again with a maximum tokens value that is lower than 2048.',
    source: 'https://github.com/aws-samples/bedrock-access-gateway/issues/41 (corpus bedrock-output-cap-02)',
  },
  {
    name: 'bedrock-input-too-long',
    kind: 'context',
    provider: 'AWS Bedrock',
    pattern: overflowRegex('Input is too long for requested model'),
    example: 'The model returned the following errors: Input is too long for requested model.',
    source: 'https://github.com/continuedev/continue/issues/9592 (corpus bedrock-input-too-long-03)',
  },
  {
    name: 'mistral-prompt-too-large-for-model',
    kind: 'context',
    provider: 'Mistral AI (also through Bedrock)',
    pattern: overflowRegex(
      'Prompt contains (?<input>{N}) tokens(?: and {N} draft tokens)?,? (?:and is )?too large for model with (?<window>{N}) maximum context length',
    ),
    example:
      'Prompt contains 40960 tokens and 0 draft tokens, too large for model with 32768 maximum context length',
    source: 'public test fixture (corpus mistral-ctx-03)',
  },
  {
    name: 'xai-maximum-prompt-length',
    kind: 'context',
    provider: 'xAI',
    pattern: overflowRegex(
      'maximum prompt length is (?<window>{N}) but the request contains (?<input>{N}) tokens',
    ),
    example: "This model's maximum prompt length is 131072 but the request contains 149617 tokens.",
    source: 'public test fixture (corpus xai-ctx-02)',
  },
  {
    name: 'groq-max-tokens-less-or-equal',
    kind: 'output_cap',
    provider: 'Groq',
    pattern: overflowRegex(
      String.raw`\x60?max(?:_completion)?_tokens\x60? must be less than or equal to \x60?(?<output_limit>{N})`,
    ),
    example:
      '`max_completion_tokens` must be less than or equal to `16384`, the maximum value for `max_completion_tokens` is less than the `context_window` for this model',
    source: 'https://github.com/Alishahryar1/free-claude-code/issues/1354 (corpus groq-output-cap-01)',
  },
  {
    // Free tier: 8192 although the models advertise more. The current length counts the completion.
    name: 'cerebras-current-length',
    kind: 'context',
    provider: 'Cerebras',
    pattern: overflowRegex('Current length is (?<total>{N}) while limit is (?<window>{N})'),
    example:
      'Please reduce the length of the messages or completion. Current length is 14859 while limit is 8192',
    source: 'public Rust test fixture of a client error string (corpus cerebras-ctx-02)',
  },
  {
    name: 'copilot-prompt-token-count',
    kind: 'context',
    provider: 'GitHub Copilot API (code model_max_prompt_tokens_exceeded)',
    pattern: overflowRegex('prompt token count of (?<input>{N}) exceeds the limit of (?<window>{N})'),
    example: 'prompt token count of 514673 exceeds the limit of 128000',
    source: 'https://github.com/microsoft/vscode/issues/289514',
  },
  {
    name: 'moonshot-exceeded-model-token-limit',
    kind: 'context',
    provider: 'Moonshot AI (Kimi)',
    pattern: overflowRegex(
      String.raw`exceeded model token limit: (?<window>{N})(?: \(requested: (?<total>{N})\))?`,
    ),
    example: 'Invalid request: Your request exceeded model token limit: 262144 (requested: 287431)',
    source: 'https://github.com/BigPizzaV3/CodexPlusPlus/issues/1803',
  },
  {
    // moonshot-v1 counts the prompt plus max_tokens against the model's length: a two-line prompt
    // with max_tokens 8190 fails on the 8k model and max_tokens 700 works.
    name: 'moonshot-model-max-length-exceeded',
    kind: 'budget',
    provider: 'Moonshot AI (moonshot-v1)',
    pattern: overflowRegex('model max length exceeded, max length: ?(?<window>{N})'),
    example: "code: 400 - {'error': {'message': 'model max length exceeded, max length:8192',",
    source: 'https://github.com/MoonshotAI/MoonshotAI-Cookbook/issues/18 (fixture moonshot-budget-01)',
  },
  {
    name: 'cohere-too-many-tokens',
    kind: 'context',
    provider: 'Cohere',
    pattern: overflowRegex(
      String.raw`too many tokens: total number of tokens \(prompt and prediction\) cannot exceed (?<window>{N}) - received (?<total>{N})`,
    ),
    example:
      'CohereError: too many tokens: total number of tokens (prompt and prediction) cannot exceed 2048 - received 6354. Try using a shorter prompt or a smaller max_tokens value.',
    source: 'https://github.com/cohere-ai/sandbox-topically/issues/4',
  },
  {
    name: 'dashscope-range-of-input-length',
    kind: 'context',
    provider: 'Alibaba DashScope (Qwen)',
    pattern: overflowRegex(String.raw`Range of input length should be \[1, (?<window>{N})\]`),
    example: '<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 204800]',
    source: 'https://github.com/QwenLM/qwen-code/issues/98',
  },
  {
    name: 'zai-prompt-exceeds-max-length',
    kind: 'context',
    provider: 'z.ai / Zhipu GLM (code 1261)',
    pattern: overflowRegex('Prompt exceeds max length'),
    example: '{"error":{"code":"1261","message":"Prompt exceeds max length"}}',
    source: 'https://github.com/zeroclaw-labs/zeroclaw/issues/4124',
  },
  {
    // "(2013)" is MiniMax's code for invalid params, not a token count: no figure is taken.
    name: 'minimax-context-window-exceeds-limit',
    kind: 'context',
    provider: 'MiniMax',
    pattern: overflowRegex('context window exceeds limit'),
    example: 'invalid params, context window exceeds limit (2013)',
    source: 'https://github.com/NousResearch/hermes-agent/issues/37289 (corpus minimax-ctx-01)',
  },
];
