/**
 * @module
 * OpenAI's wording and the servers that copy it (DeepSeek, Azure, vLLM's OpenAI server, OpenRouter):
 * "maximum context length is W tokens", then one of several breakdowns of what was requested.
 */
import { overflowRegex } from '../overflow-regex.js';
import type { OverflowRow } from '../types.js';

/**
 * vLLM before PR 33425 (issue 33418) reported `max_model_len - max_tokens` as the "maximum context
 * length" in its input-tokens wording. No served model has a window this small, so a figure below it
 * means the request's `max_tokens` took the room: a budget problem, not an oversized prompt.
 */
const VLLM_MISREPORTED_WINDOW_BELOW = 1_024;

export const OPENAI_FAMILY_ROWS: readonly OverflowRow[] = [
  {
    name: 'openai-messages-resulted',
    kind: 'context',
    provider: 'OpenAI Chat Completions (also Azure OpenAI, DeepSeek)',
    pattern: overflowRegex(
      String.raw`maximum context length is (?<window>{N}) tokens\. However, your messages resulted in (?<input>{N}) tokens`,
    ),
    example:
      "This model's maximum context length is 4097 tokens. However, your messages resulted in 4294 tokens. Please reduce the length of the messages.",
    source: 'https://github.com/chathub-dev/chathub/issues/126 (corpus openai-ctx-messages-06)',
  },
  {
    // Chat ("4012 in the messages, 256 in the completion"), with tools ("2426 in the messages, 2933 in
    // the functions, and 4096 in the completion"), legacy Completions and Embeddings ("3860 in your
    // prompt; 256 for the completion"), 2022 ("2049 in your prompt, 5 for the completion"). The prompt
    // is everything but the completion: messages plus functions.
    name: 'openai-requested-breakdown',
    kind: 'context',
    provider: 'OpenAI Chat/Completions/Embeddings, DeepSeek, vLLM <= 0.9',
    pattern: overflowRegex(
      String.raw`maximum context length is (?<window>{N}) tokens[.,] however,? you requested (?<total>{N}) tokens \((?<input>{N}) in (?:the messages|your prompt)[;,] (?:{N} in the functions, )?(?:and )?(?<output>{N}) (?:in|for) the completion\)`,
    ),
    example:
      "This model's maximum context length is 4097 tokens. However, you requested 4268 tokens (4012 in the messages, 256 in the completion). Please reduce the length of the messages or completion.",
    source: 'https://github.com/conghaonet/hao_chatgpt/issues/4 (corpus openai-budget-01)',
    figures: (figures) =>
      figures.total !== undefined && figures.output !== undefined && figures.input !== undefined
        ? { ...figures, input: Math.max(figures.input, figures.total - figures.output) }
        : figures,
  },
  {
    // vllm engine/serving.py (0.10-0.19) and renderers/params.py (0.2x, "at least": tokenized with
    // truncation at window - max_tokens + 1, so the input is a lower bound); the prompt may also be
    // counted in characters before tokenization.
    name: 'vllm-requested-output-and-prompt',
    kind: 'budget',
    provider: 'vLLM OpenAI-compatible server (0.10 and later)',
    pattern: overflowRegex(
      String.raw`maximum context length is (?<window>{N}) tokens\. However, you requested (?<output>{N}) output tokens and your prompt contains (?:(?:at least )?(?<input>{N}) input tokens, for a total of (?:at least )?(?<total>{N}) tokens|{N} characters)`,
    ),
    example:
      "This model's maximum context length is 8192 tokens. However, you requested 4096 output tokens and your prompt contains 5000 input tokens, for a total of 9096 tokens. Please reduce the length of the input prompt or the number of requested output tokens.",
    source: 'mudler/nib chat/testdata/overflow/vllm-current-budget.json (vllm/renderers/params.py)',
  },
  {
    // The figures decide: the prompt within the window and prompt + max_tokens over it is budget.
    name: 'vllm-input-tokens-plus-max-tokens',
    kind: 'budget',
    provider: 'vLLM OpenAI-compatible server (PR 33425 wording)',
    pattern: overflowRegex(
      String.raw`maximum context length is (?<window>{N}) tokens\. However, your request has (?<input>{N}) input tokens plus (?<output>{N}) 'max_tokens'`,
    ),
    example:
      "This model's maximum context length is 2048 tokens. However, your request has 8 input tokens plus 2045 'max_tokens'. Please reduce one or the other. (parameter=input_tokens, max_tokens, value=(8, 2045))",
    source: 'https://github.com/vllm-project/vllm/pull/33425 (fixture vllm-plus-max-tokens-01)',
  },
  {
    name: 'vllm-request-input-tokens',
    kind: 'context',
    provider: 'vLLM OpenAI-compatible server (0.11+)',
    pattern: overflowRegex(
      String.raw`maximum context length is (?<window>{N}) tokens\. However, your request has (?<input>{N}) input tokens`,
    ),
    example:
      "This model's maximum context length is 65536 tokens. However, your request has 93196 input tokens. Please reduce the length of the input messages. (parameter=input_tokens, value=93196)",
    source: 'public session-error report (corpus vllm-ctx-input-tokens-param-01)',
    kindFrom: ({ window }) =>
      window !== undefined && window < VLLM_MISREPORTED_WINDOW_BELOW ? 'budget' : undefined,
  },
  {
    // The parts in parentheses are prompt-side ("of text input", "of tool input") except "in the
    // output": the prompt is the total less the output.
    name: 'openrouter-requested-about-breakdown',
    kind: 'context',
    provider: 'OpenRouter (all backends)',
    pattern: overflowRegex(
      String.raw`maximum context length is (?<window>{N}) tokens\. However, you requested about (?<total>{N}) tokens \((?:{N} of [a-z]+ input, )*(?:{N} of [a-z]+ input|(?<output>{N}) in the output)\)`,
    ),
    example:
      'This endpoint\'s maximum context length is 131072 tokens. However, you requested about 141607 tokens (10535 of text input, 131072 in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.',
    source: 'https://github.com/Aider-AI/aider/issues/3721 (corpus openrouter-budget-01)',
    figures: (figures) =>
      figures.total === undefined ? figures : { ...figures, input: figures.total - (figures.output ?? 0) },
  },
  {
    name: 'openai-maximum-context-length',
    kind: 'context',
    provider: 'OpenAI-compatible (OpenRouter without breakdown, Bedrock Llama, older vLLM)',
    pattern: overflowRegex(
      "This (?:model|endpoint)'s maximum context length is (?<window>{N}) tokens(?:[.,] however,? you requested (?:about )?(?<total>{N}) tokens)?",
    ),
    example:
      "This endpoint's maximum context length is 204800 tokens. However, you requested about 244027 tokens.",
    source: 'cline/cline context-error-handling.test.ts (corpus openrouter-ctx-02)',
  },
  {
    // GitHub Models (Azure AI inference) per-request token limit of the free tier, sent as HTTP 413
    // with code tokens_limit_reached: a token limit, unlike byte-size 413s.
    name: 'github-models-request-body-too-large',
    kind: 'context',
    provider: 'GitHub Models / Azure AI model inference',
    pattern: overflowRegex(
      String.raw`Request body too large for \S{1,80} model\. Max size: (?<window>{N}) tokens`,
    ),
    example:
      "Error code: 413 - {'error': {'code': 'tokens_limit_reached', 'message': 'Provider API error: Request body too large for gpt-4o model. Max size: 8000 tokens.'}}",
    source: 'https://github.com/evalstate/fast-agent/issues/346',
  },
  {
    name: 'openai-configured-input-limit',
    kind: 'context',
    provider: 'OpenAI (GPT-5 input limit)',
    pattern: overflowRegex(
      String.raw`Input tokens exceed the configured limit of (?<window>{N}) tokens\. Your messages resulted in (?<input>{N}) tokens`,
    ),
    example:
      'Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 509178 tokens. Please reduce the length of the messages.',
    source: 'BerriAI/litellm tests/test_litellm/litellm_core_utils/test_exception_mapping_utils.py',
  },
  {
    name: 'openai-max-tokens-too-large',
    kind: 'output_cap',
    provider: 'OpenAI Chat Completions',
    pattern: overflowRegex(
      String.raw`max(?:_completion)?_tokens is too large: (?<output>{N})\. This model supports at most (?<output_limit>{N}) completion tokens, whereas you provided`,
    ),
    example:
      'max_tokens is too large: 8192. This model supports at most 4096 completion tokens, whereas you provided 8192.',
    source: 'https://github.com/ChatGPTNextWeb/NextChat/issues/3195 (corpus openai-output-cap-02)',
  },
  {
    // Without "whereas you provided", the figure is the served model's length (vLLM has no separate
    // output cap), so it is reported as the window; the kind stays output_cap.
    name: 'vllm-max-tokens-too-large',
    kind: 'output_cap',
    provider: 'vLLM behind LiteLLM',
    pattern: overflowRegex(
      String.raw`max(?:_completion)?_tokens is too large: (?<output>{N})\. ?This model supports at most (?<window>{N}) completion tokens`,
    ),
    example:
      'max_completion_tokens is too large: 250000.This model supports at most 210000 completion tokens.',
    source: 'mudler/nib chat/testdata/overflow/regolo-vllm-output-cap-nonstream.json (live regolo capture)',
  },
  {
    name: 'openai-string-above-max-length',
    kind: 'context',
    provider: 'OpenAI (10 MiB limit on one input string)',
    pattern: overflowRegex(
      String.raw`Invalid '[^']{0,120}content': string too long\. Expected a string with maximum length (?<window>{N}), but got a string with length (?<input>{N})`,
    ),
    example:
      "Invalid 'input[0].content': string too long. Expected a string with maximum length 10485760, but got a string with length 62114761 instead.",
    source: 'https://github.com/VectorlyApp/bluebox/issues/31 (corpus openai-string-too-long-content-02)',
    units: 'characters',
  },
  {
    name: 'deepseek-max-tokens-range',
    kind: 'output_cap',
    provider: 'DeepSeek',
    pattern: overflowRegex(
      String.raw`Invalid max_tokens value, the valid range of max_tokens is \[1, (?<output_limit>{N})\]`,
    ),
    example: 'Error: Invalid max_tokens value, the valid range of max_tokens is [1, 8192]',
    source: 'https://github.com/we0-dev/we0/issues/56 (corpus deepseek-output-cap-01)',
  },
  {
    name: 'openai-input-exceeds-context-window',
    kind: 'context',
    provider: 'OpenAI Responses API (code context_length_exceeded)',
    pattern: overflowRegex('Your input exceeds the context window of this model'),
    example: 'Your input exceeds the context window of this model. Please adjust your input and try again.',
    source: 'openai/codex codex-rs/core/src/client.rs (test context_window_error_is_fatal)',
  },
  {
    name: 'openai-context-length-exceeded-code',
    kind: 'context',
    provider: 'OpenAI, Groq, Cerebras (error code)',
    pattern: overflowRegex(String.raw`\bcontext_length_exceeded\b`),
    example: 'error, status code: 400, status: 400 Bad Request, message: context_length_exceeded',
    source: 'mudler/nib chat/testdata/overflow/code-context-length-exceeded.json',
  },
  {
    name: 'groq-reduce-length-of-messages',
    kind: 'context',
    provider: 'Groq',
    pattern: overflowRegex('Please reduce the length of the messages or completion'),
    example: 'Please reduce the length of the messages or completion.',
    source: 'https://github.com/thepersonalaicompany/amurex-backend/issues/51 (corpus groq-ctx-01)',
  },
];
