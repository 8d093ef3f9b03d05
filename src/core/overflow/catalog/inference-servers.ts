/**
 * @module
 * Self-hosted inference servers: llama.cpp (and LocalAI, koboldcpp, LM Studio on top of it),
 * llama-cpp-python, vLLM's engine checks, SGLang (and Together), Hugging Face TGI, Ollama. Several
 * send overflows as HTTP 500; these rows classify at any status.
 */
import { overflowRegex } from '../overflow-regex.js';
import type { OverflowRow } from '../types.js';

export const INFERENCE_SERVER_ROWS: readonly OverflowRow[] = [
  {
    name: 'llamacpp-request-exceeds-context-size',
    kind: 'context',
    provider: 'llama.cpp via LocalAI (gRPC Internal, often HTTP 500)',
    pattern: overflowRegex(
      String.raw`request \((?<input>{N}) tokens\) exceeds the available context size \((?<window>{N}) tokens\)`,
    ),
    example:
      'rpc error: code = Internal desc = request (9739 tokens) exceeds the available context size (8192 tokens), try increasing it',
    source: 'mudler/nib chat/errors_test.go (corpus llamacpp-ctx-05)',
    windowCheck: 'prompt',
  },
  {
    name: 'llamacpp-exceed-context-size-error',
    kind: 'context',
    provider: 'llama.cpp server (type exceed_context_size_error, PR 15780)',
    pattern: overflowRegex(
      `exceed_context_size_error['"]?, ?['"]?n_prompt_tokens['"]?: ?(?<input>{N}), ?['"]?n_ctx['"]?: ?(?<window>{N})`,
    ),
    example:
      '{"error":{"code":400,"message":"the request exceeds the available context size. try increasing the context size or enable context shift","type":"exceed_context_size_error","n_prompt_tokens":14429,"n_ctx":8192}}',
    source: 'https://github.com/oobabooga/textgen/issues/7257 (corpus llamacpp-ctx-02)',
    // server-context.cpp rejects `task.n_tokens() >= slot.n_ctx` only; a reply that reaches n_ctx
    // stops with STOP_TYPE_LIMIT (`finish_reason: "length"`).
    windowCheck: 'prompt',
  },
  {
    name: 'llamacpp-n-keep-not-below-n-ctx',
    kind: 'context',
    provider: 'llama.cpp engine (via LM Studio)',
    pattern: overflowRegex(
      String.raw`Cannot truncate prompt with n_keep \((?<input>{N})\) >= n_ctx \((?<window>{N})\)`,
    ),
    example: 'Cannot truncate prompt with n_keep (15028) >= n_ctx (7424)',
    source: 'https://github.com/anomalyco/opencode/issues/11141 (corpus lmstudio-ctx-05)',
  },
  {
    // "when context the overflows" is LM Studio's own typo.
    name: 'lmstudio-keep-first-tokens',
    kind: 'context',
    provider: 'LM Studio (0.3.x)',
    pattern: overflowRegex(
      String.raw`Trying to keep the first (?<input>{N}) tokens when (?:the )?context (?:the )?overflows\. However, the model is loaded with context length of only (?<window>{N}) tokens`,
    ),
    example:
      'Trying to keep the first 10136 tokens when context the overflows. However, the model is loaded with context length of only 7866 tokens, which is not enough.',
    source: 'https://github.com/cline/cline/issues/3664 (corpus lmstudio-ctx-02)',
  },
  {
    name: 'lmstudio-tokens-to-keep',
    kind: 'context',
    provider: 'LM Studio',
    pattern: overflowRegex(
      String.raw`tokens to keep from the initial prompt is greater than the context length(?: \(n_keep: (?<input>{N}) ?>= ?n_ctx: (?<window>{N})\))?`,
    ),
    example:
      'The number of tokens to keep from the initial prompt is greater than the context length (n_keep: 13055>= n_ctx: 4096). Try to load the model with a larger context length, or provide a shorter input.',
    source: 'https://github.com/Gitlawb/openclaude/issues/353',
  },
  {
    // The limit is the physical batch, not n_ctx; Ollama reports it as a context overflow.
    name: 'llamacpp-physical-batch',
    kind: 'context',
    provider: 'llama.cpp embeddings',
    pattern: overflowRegex(
      String.raw`input \((?<input>{N}) tokens\) is too large to process\. increase the physical batch size`,
    ),
    example:
      'input (103 tokens) is too large to process. increase the physical batch size (current batch size: 30)',
    source: 'ollama/ollama llm/llama_server_test.go (corpus llamacpp-embed-batch-01)',
  },
  {
    name: 'llama-cpp-python-requested-tokens',
    kind: 'context',
    provider: 'llama-cpp-python',
    pattern: overflowRegex(
      String.raw`Requested tokens \((?<input>{N})\) exceed context window of (?<window>{N})`,
    ),
    example: 'Requested tokens (2285) exceed context window of 2048',
    source: 'https://github.com/fedora-copr/logdetective-website/pull/193 (corpus llamacpppython-ctx-01)',
  },
  {
    // llama-cpp-python 0.1.x checked `len(prompt_tokens) + max_tokens > n_ctx` and named neither part.
    name: 'llama-cpp-python-requested-tokens-no-count',
    kind: 'budget',
    provider: 'llama-cpp-python (0.1.x)',
    pattern: overflowRegex('Requested tokens exceed context window of (?<window>{N})'),
    example: 'ValueError: Requested tokens exceed context window of 512',
    source: 'https://github.com/abetlen/llama-cpp-python/issues/120 (fixture llamacpppython-budget-01)',
  },
  {
    // vllm/renderers/params.py (current). The input is a lower bound (tokenized with truncation at
    // window - max_tokens + 1): with max_tokens 0 it reads window + 1, a context overflow.
    name: 'vllm-passed-input-and-output',
    kind: 'budget',
    provider: 'vLLM OpenAI-compatible server (current)',
    pattern: overflowRegex(
      String.raw`You passed (?<input>{N}) input tokens and requested (?<output>{N}) output tokens\. However, the model's context length is only (?<window>{N}) tokens`,
    ),
    example:
      "You passed 202753 input tokens and requested 0 output tokens. However, the model's context length is only 202752 tokens, resulting in a maximum input length of 202752 tokens.",
    source: 'https://github.com/proxysoul/Empryo/issues/52',
  },
  {
    // The figure after max_model_len is the served length (reported as the window, kind output_cap).
    name: 'vllm-max-tokens-above-max-model-len',
    kind: 'output_cap',
    provider: 'vLLM OpenAI-compatible server (current)',
    pattern: overflowRegex(
      'max(?:_completion)?_tokens=(?<output>{N}) ?cannot be greater than max_model_len=(?:max_total_tokens=)?(?<window>{N})',
    ),
    example:
      'max_tokens=16384 cannot be greater than max_model_len=max_total_tokens=8192. Please request fewer output tokens. (parameter=max_tokens, value=16384)',
    source: 'https://github.com/mateaix/mateclaw/issues/481',
  },
  {
    name: 'sglang-input-length-exceeds-maximum-allowed',
    kind: 'context',
    provider: 'SGLang',
    pattern: overflowRegex(
      String.raw`Input length \((?<input>{N}) tokens\) exceeds the maximum allowed length \((?<window>{N}) tokens\)`,
    ),
    example: 'Input length (160062 tokens) exceeds the maximum allowed length (59862 tokens).',
    source: 'https://github.com/sgl-project/sglang/issues/4048',
  },
  {
    name: 'wasmedge-ggml-prompt-too-long',
    kind: 'context',
    provider: 'WasmEdge WASI-NN GGML backend (llama.cpp)',
    pattern: overflowRegex(String.raw`prompt too long \((?<input>{N}) tokens, max (?<window>{N})\)`),
    example: '[WASI-NN] GGML backend: Error: prompt too long (570 tokens, max 508)',
    source: 'https://github.com/second-state/WasmEdge-WASINN-examples/issues/50',
  },
  {
    name: 'vllm-requested-token-count',
    kind: 'budget',
    provider: 'vLLM (behind LiteLLM)',
    pattern: overflowRegex(
      String.raw`Requested token count exceeds the model's maximum context length of (?<window>{N}) tokens\. You requested a total of (?<total>{N}) tokens: (?<input>{N}) tokens from the input messages and (?<output>{N}) tokens for the completion`,
    ),
    example:
      "Requested token count exceeds the model's maximum context length of 210000 tokens. You requested a total of 210123 tokens: 133 tokens from the input messages and 209990 tokens for the completion.",
    source: 'mudler/nib chat/testdata/overflow/regolo-vllm-budget-nonstream.json (live regolo capture)',
  },
  {
    name: 'vllm-decoder-prompt-longer',
    kind: 'context',
    provider: 'vLLM engine (0.10-0.11)',
    pattern: overflowRegex(
      String.raw`prompt \(length (?<input>{N})\) is longer than the maximum model length of (?<window>{N})`,
    ),
    example: 'The decoder prompt (length 163840) is longer than the maximum model length of 131072.',
    source: 'https://github.com/thu-coai/Glyph/issues/9 (corpus vllm-ctx-decoder-01)',
  },
  {
    name: 'vllm-input-length-exceeds',
    kind: 'context',
    provider: 'vLLM OpenAI-compatible server (after PR 36789)',
    pattern: overflowRegex(
      String.raw`Input length \((?<input>{N})\) exceeds model's maximum context length \((?<window>{N})\)`,
    ),
    example: "Input length (11680) exceeds model's maximum context length (4096).",
    source: 'https://github.com/vllm-project/vllm/pull/36789 (corpus vllm-ctx-input-length-01)',
  },
  {
    name: 'vllm-prompt-too-long-to-fit',
    kind: 'context',
    provider: 'vLLM engine',
    pattern: overflowRegex(
      String.raw`prompt \(total length (?<input>{N})\) is too long to fit into the model \(context length (?<window>{N})\)`,
    ),
    example:
      'ValueError: The prompt (total length 25938) is too long to fit into the model (context length 4096).',
    source: 'https://github.com/vllm-project/vllm/issues/12165',
  },
  {
    // 2023 scheduler: HTTP 200 with an empty completion. The logged limit was max_num_batched_tokens,
    // not the window (per maintainers), so it is not taken as one.
    name: 'vllm-scheduler-input-prompt-too-long',
    kind: 'context',
    provider: 'vLLM scheduler (2023)',
    pattern: overflowRegex(
      String.raw`Input prompt \((?<input>{N}) tokens\) is too long and exceeds limit of {N}`,
    ),
    example: 'Input prompt (2716 tokens) is too long and exceeds limit of 4096',
    source: 'https://github.com/vllm-project/vllm/issues/525 (corpus vllm-scheduler-warning-01)',
  },
  {
    name: 'sglang-input-longer-than-context',
    kind: 'context',
    provider: 'SGLang, Together AI',
    pattern: overflowRegex(
      String.raw`input \((?<input>{N}) tokens\) is longer than the model's context length \((?<window>{N}) tokens\)`,
    ),
    example: "The input (400013 tokens) is longer than the model's context length (262144 tokens).",
    source: 'public JS test fixture captured from a real sglang server (corpus sglang-ctx-01)',
  },
  {
    // Backticks come mangled from some UIs ("`inputs tokens"), hence the optional ones.
    name: 'tgi-inputs-plus-max-new-tokens',
    kind: 'budget',
    provider: 'Hugging Face TGI (also Together 2023)',
    pattern: overflowRegex(
      String.raw`\x60?inputs\x60? tokens \+ \x60?max_new_tokens\x60? must be <= (?<window>{N})\. Given: (?<input>{N}) \x60?inputs\x60? tokens and (?<output>{N}) \x60?max_new_tokens`,
    ),
    example:
      'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 1512. Given: 1000 `inputs` tokens and 1024 `max_new_tokens`',
    source: 'https://github.com/huggingface/chat-ui/issues/340 (corpus tgi-budget-03)',
  },
  {
    name: 'tgi-inputs-less-than',
    kind: 'context',
    provider: 'Hugging Face TGI',
    pattern: overflowRegex(
      String.raw`\x60?inputs\x60? must have less than (?<window>{N}) tokens\. Given: (?<input>{N})`,
    ),
    example: 'Input validation error: `inputs` must have less than 4096 tokens. Given: 4545',
    source: 'https://github.com/meta-llama/llama/issues/1103 (corpus tgi-ctx-02)',
  },
  {
    // Not the "`inputs` tokens + `max_new_tokens` must be <=" sum, which is the row above.
    name: 'tgi-max-new-tokens-limit',
    kind: 'output_cap',
    provider: 'Hugging Face TGI',
    pattern: overflowRegex(
      String.raw`(?<!\+ \x60?)\x60?max_new_tokens\x60? must be <= (?<output_limit>{N})(?:\. Given: (?<output>{N}))?`,
    ),
    example: "ValueError: Error 422: {'error': 'Input validation error: `max_new_tokens` must be <= 192",
    source: 'https://github.com/huggingface/transformers/issues/28523 (corpus tgi-output-cap-01)',
  },
  {
    name: 'ollama-prompt-too-long-model-maximum',
    kind: 'context',
    provider: 'Ollama (cloud models), Fireworks-style wording',
    pattern: overflowRegex(
      'The prompt is too long: (?<input>{N}), model maximum context length: (?<window>{N})',
    ),
    example: 'The prompt is too long: 208863, model maximum context length: 202752',
    source: 'public python test fixture (corpus ollama-cloud-ctx-04)',
  },
  {
    name: 'llamacpp-exceeds-available-context-size',
    kind: 'context',
    provider: 'llama.cpp server',
    pattern: overflowRegex('exceeds the available context size'),
    example:
      'the request exceeds the available context size. try increasing the context size or enable context shift',
    source: 'LostRuins/koboldcpp examples/server/server.cpp (corpus llamacpp-ctx-legacy-01)',
    windowCheck: 'prompt',
  },
  {
    // Raised mid-generation when prompt + generated tokens reach n_ctx: the prompt had fitted.
    name: 'llamacpp-context-shift-disabled',
    kind: 'budget',
    provider: 'llama.cpp server (2024)',
    pattern: overflowRegex('context shift is disabled'),
    example: '{"error":{"code":500,"message":"context shift is disabled","type":"server_error"}}',
    source: 'LostRuins/koboldcpp examples/server/server.cpp (corpus llamacpp-ctx-shift-disabled-01)',
  },
  {
    name: 'ollama-input-length-exceeds-context-length',
    kind: 'context',
    provider: 'Ollama /api/embed',
    pattern: overflowRegex('input length exceeds the context length'),
    example: '{"error":"the input length exceeds the context length"}',
    source: 'ollama/ollama server/routes.go (corpus ollama-embed-ctx-01)',
  },
  {
    name: 'ollama-prompt-longer-than-context',
    kind: 'context',
    provider: 'Ollama local runner',
    pattern: overflowRegex('prompt is longer than the context length'),
    example:
      'the prompt is longer than the context length currently available to the model; shorten the prompt, adjust the context length in settings, or use a model with a longer context length',
    source: 'ollama/ollama llm/llama_server.go (corpus ollama-local-ctx-01)',
  },
  {
    // vLLM before PR 36789 computed max_tokens = window - prompt and then rejected it: a negative
    // figure means the prompt alone was over the window. "got 0" or more is plain validation.
    name: 'vllm-negative-max-tokens',
    kind: 'context',
    provider: 'vLLM (before PR 36789)',
    pattern: overflowRegex(String.raw`max_tokens must be at least 1, got -\d`),
    example: 'max_tokens must be at least 1, got -7584. (parameter=max_tokens, value=-7584)',
    source: 'https://github.com/vllm-project/vllm/pull/36789 (corpus vllm-negative-max-tokens-02)',
  },
];
