/**
 * @module
 * Rejections that look like overflows and are not: rate limits counted in tokens, quota and billing
 * errors sent as 400, byte-size limits, overloads, auth, content filters, output truncated at
 * `max_tokens`, parameter validation. They come after the rows with figures (a message that states a
 * window is an overflow whatever else the text holds) and before every figure-less row, so a phrase
 * such as "too many tokens" in a throttling message never reads as an overflow.
 */
import { overflowRegex } from '../overflow-regex.js';
import type { OverflowRow } from '../types.js';

export const NEAR_MISS_ROWS: readonly OverflowRow[] = [
  {
    name: 'tokens-per-minute-rate-limit',
    kind: 'none',
    provider: 'OpenAI, Anthropic, Groq, Bedrock (rate limits counted in tokens)',
    pattern: overflowRegex(String.raw`\b(?:input |output )?tokens per (?:min(?:ute)?|hour|day)\b|\(TPM\)`),
    example:
      'Request too large for gpt-4o in organization org-78asdf87asdf9aaa8976 on tokens per min (TPM): Limit 30000, Requested 31538. The input or output tokens must be reduced in order to run successfully.',
    source: 'https://github.com/TheR1D/shell_gpt/issues/653 (corpus openai-request-too-large-tpm-01)',
  },
  {
    name: 'rate-limit',
    kind: 'none',
    provider: 'generic',
    pattern: overflowRegex(String.raw`\brate[ _-]?limit|\btoo many requests\b`),
    example: 'localai stream: status 429: Rate limit exceeded for this context window, retry in 20s',
    source: 'mudler/nib chat/testdata/overflow/negative-rate-limit.json',
  },
  {
    name: 'bedrock-throttling',
    kind: 'none',
    provider: 'AWS Bedrock',
    pattern: overflowRegex('ThrottlingException|please wait before trying again'),
    example:
      'An error occurred (ThrottlingException) when calling the InvokeModel operation (reached max retries: 2): Too many tokens, please wait before trying again.',
    source:
      'https://github.com/anthropics/claude-code/issues/1466 (corpus bedrock-throttle-too-many-tokens-01)',
  },
  {
    name: 'quota-or-billing',
    kind: 'none',
    provider: 'OpenAI, Anthropic, Gemini (sent as 400 or 429)',
    pattern: overflowRegex(
      String.raw`exceeded your current quota|insufficient_quota|credit balance is too low|\bquota\b|plans? (?:&|and) billing`,
    ),
    example:
      'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
    source: 'https://github.com/anthropics/claude-code/issues/66314 (corpus anthropic-credit-low-02)',
  },
  {
    // Bytes, not tokens: trimming history may or may not help, and the window is not the limit.
    name: 'byte-size-limit',
    kind: 'none',
    provider: 'Anthropic (request_too_large), Gemini',
    pattern: overflowRegex(
      String.raw`\brequest_too_large\b|Request exceeds the maximum size|payload size exceeds the limit|request body size {N} exceeded`,
    ),
    example: "{'error': {'type': 'request_too_large', 'message': 'Request exceeds the maximum size'}}",
    source: 'https://github.com/anthropics/anthropic-sdk-python/issues/938 (corpus anthropic-413-bytes-01)',
  },
  {
    name: 'overloaded',
    kind: 'none',
    provider: 'Anthropic, Gemini, Vertex, TGI',
    pattern: overflowRegex(
      String.raw`\boverloaded(?:_error)?\b|experiencing high demand|Resource exhausted\. Please try again later`,
    ),
    example: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    source:
      'https://github.com/anthropics/anthropic-sdk-typescript/issues/616 (corpus anthropic-overloaded-01)',
  },
  {
    name: 'auth',
    kind: 'none',
    provider: 'generic',
    pattern: overflowRegex(
      String.raw`\bauthentication_error\b|\binvalid[ _]api[ _]key\b|\bincorrect api key\b|\bunauthorized\b|\bpermission_denied\b`,
    ),
    example: 'error, status code: 401, status: 401 Unauthorized, message: Incorrect API key provided',
    source: 'mudler/nib chat/testdata/overflow/negative-auth.json',
  },
  {
    name: 'content-filter',
    kind: 'none',
    provider: 'Azure OpenAI',
    pattern: overflowRegex(String.raw`\bcontent_filter\b|content management policy`),
    example:
      "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
    source: 'https://github.com/vibrantlabsai/ragas/issues/649 (corpus azure-content-filter-02)',
  },
  {
    // The reply hit the client's max_tokens: output truncated, compaction would not help.
    name: 'claude-code-output-truncated',
    kind: 'none',
    provider: 'Claude Code (client)',
    pattern: overflowRegex('response exceeded the (?<output>{N}) output token maximum'),
    example:
      "API Error: Claude's response exceeded the 32000 output token maximum. To configure this behavior, set the CLAUDE_CODE_MAX_OUTPUT_TOKENS environment variable.",
    source: 'https://github.com/anthropics/claude-code/issues/30181 (corpus claude-code-output-truncated-01)',
  },
  {
    name: 'openai-length-finish-reason',
    kind: 'none',
    provider: 'openai-python LengthFinishReasonError (HTTP 200, finish_reason length)',
    pattern: overflowRegex(
      String.raw`length limit was reached(?: - CompletionUsage\(completion_tokens=(?<output>{N}), prompt_tokens=(?<input>{N}), total_tokens=(?<total>{N}))?`,
    ),
    example:
      'openai.LengthFinishReasonError: Could not parse response content as the length limit was reached - CompletionUsage(completion_tokens=1, prompt_tokens=127, total_tokens=128)',
    source: 'https://github.com/openai/openai-python/pull/1701 (corpus openai-length-finish-01)',
  },
  {
    name: 'openai-max-tokens-above-maximum-value',
    kind: 'none',
    provider: 'OpenAI (parameter validation)',
    pattern: overflowRegex(
      "Invalid '(?:max_tokens|max_completion_tokens|max_output_tokens)': integer above maximum value",
    ),
    example:
      "Invalid 'max_tokens': integer above maximum value. Expected a value <= 16384, but got 100000 instead.",
    source: 'mudler/nib chat/testdata/overflow/negative-max-tokens-validation.json',
  },
  {
    // A negative figure is vLLM's disguised overflow (see vllm-negative-max-tokens); 0 or more is a
    // caller's bad parameter.
    name: 'max-tokens-at-least-one',
    kind: 'none',
    provider: 'vLLM, OpenAI-compatible servers (parameter validation)',
    pattern: overflowRegex(String.raw`max_tokens must be at least 1, got \d`),
    example:
      "Error code: 400 - {'object': 'error', 'message': 'max_tokens must be at least 1, got 0.', 'type': 'BadRequestError', 'param': None, 'code': 400}",
    source: 'https://github.com/EleutherAI/lm-evaluation-harness/issues/1903',
  },
];
