/**
 * @module
 * How vLLM has rejected a request that does not fit, release by release, and the SGLang wording that
 * LiteLLM deployments labelled "vllm" also send. Each row names where the text comes from.
 *
 * | wording | source | prompt alone too long | prompt + max_tokens too long |
 * | --- | --- | --- | --- |
 * | `v0` | `vllm/entrypoints/openai/serving_engine.py` (≤ 0.9) | "you requested A tokens in the messages, Please reduce…" | "you requested T tokens (A in the messages, B in the completion)" |
 * | `v1` | `vllm/entrypoints/openai/engine/serving.py` (0.10–0.19) | "your request has A input tokens" | "you requested B output tokens and your prompt contains A input tokens, for a total of T tokens" |
 * | `v2` | `vllm/renderers/params.py` (0.2x) | the budget text with B = 0 | "…your prompt contains at least A input tokens, for a total of at least T tokens" |
 * | `v3` | `vllm/renderers/params.py` (current) | the budget text with B = 0 | "You passed A input tokens and requested B output tokens. However, the model's context length is only W tokens, resulting in a maximum input length of W-B tokens." |
 * | `sglang` | SGLang `tokenizer_manager.py` / `serving_chat.py` | "The input (A tokens) is longer than the model's context length (W tokens)." | "Requested token count exceeds the model's maximum context length of W tokens. You requested a total of T tokens: A tokens from the input messages and B tokens for the completion." |
 *
 * `v2` and `v3` tokenize with truncation at `W - B + 1` tokens, so the input they report is that
 * lower bound, not the prompt's real size (a 300k-token prompt with B = 32,768 on a 131,072 window is
 * reported as 98,305): by the numbers such a body reads as a budget overflow even when the prompt
 * alone is over the window. From `v1` on, messages end with vLLM's `(parameter=…, value=…)` suffix.
 * Captured examples: corpus rows `vllm-budget-01` (v0), `vllm-ctx-input-tokens-param-01` (v1),
 * `nib-vllm-current` (v1 budget), `nib-regolo-vllm-budget-nonstream` (sglang).
 */
import type { OverflowKind } from './profile.js';

/** The rejection wordings the `vllm` and `litellm-vllm` profiles can send. */
export type VllmWording = 'v0' | 'v1' | 'v2' | 'v3' | 'sglang';

export const VLLM_WORDINGS: readonly VllmWording[] = ['v0', 'v1', 'v2', 'v3', 'sglang'];

/** The wording of the newest vLLM release the source was read from. */
export const DEFAULT_VLLM_WORDING: VllmWording = 'v3';

/** The outcome of vLLM's length checks. */
export type VllmCheck =
  | { ok: true; outputLimit: number }
  | { ok: false; kind: OverflowKind; message: string; param: string | null };

const suffix = (parameter: string, value: number): string => ` (parameter=${parameter}, value=${value})`;

/** Runs the length checks of one vLLM (or SGLang) release on a request. */
export function vllmCheck({
  wording,
  window,
  promptTokens: p,
  maxTokens: m,
  maxTokensField = 'max_tokens',
}: {
  wording: VllmWording;
  window: number;
  promptTokens: number;
  maxTokens: number | undefined;
  maxTokensField?: string;
}): VllmCheck {
  const head = `This model's maximum context length is ${window} tokens.`;
  const fail = (kind: OverflowKind, message: string, param: string | null = null): VllmCheck => ({
    ok: false,
    kind,
    message,
    param,
  });
  switch (wording) {
    case 'v0': {
      if (m === undefined && p >= window)
        return fail(
          'context',
          `${head} However, you requested ${p} tokens in the messages, Please reduce the length of the messages.`,
        );
      const output = m ?? window - p;
      if (p + output > window)
        return fail(
          p > window ? 'context' : 'budget',
          `${head} However, you requested ${p + output} tokens (${p} in the messages, ${output} in the completion). Please reduce the length of the messages or completion.`,
        );
      return { ok: true, outputLimit: output };
    }
    case 'v1': {
      if (p >= window)
        return fail(
          'context',
          `${head} However, your request has ${p} input tokens. Please reduce the length of the input messages.${suffix('input_tokens', p)}`,
          'input_tokens',
        );
      const output = m ?? window - p;
      if (p + output > window)
        return fail(
          'budget',
          `${head} However, you requested ${output} output tokens and your prompt contains ${p} input tokens, for a total of ${p + output} tokens. Please reduce the length of the input prompt or the number of requested output tokens.${suffix('input_tokens', p)}`,
          'input_tokens',
        );
      return { ok: true, outputLimit: output };
    }
    case 'v2':
    case 'v3': {
      const output = m ?? 0;
      if (output > window)
        return fail(
          'output_cap',
          `${maxTokensField}=${output} cannot be greater than max_model_len=${wording === 'v3' ? 'max_total_tokens=' : ''}${window}. Please request fewer output tokens.${suffix(maxTokensField, output)}`,
          maxTokensField,
        );
      const maxInput = window - output;
      if (p > maxInput) {
        const seen = maxInput + 1;
        const kind: OverflowKind = seen > window ? 'context' : 'budget';
        return wording === 'v2'
          ? fail(
              kind,
              `${head} However, you requested ${output} output tokens and your prompt contains at least ${seen} input tokens, for a total of at least ${seen + output} tokens. Please reduce the length of the input prompt or the number of requested output tokens.${suffix('input_tokens', seen)}`,
              'input_tokens',
            )
          : fail(
              kind,
              `You passed ${seen} input tokens and requested ${output} output tokens. However, the model's context length is only ${window} tokens, resulting in a maximum input length of ${maxInput} tokens. Please reduce the length of the input prompt.${suffix('input_tokens', seen)}`,
              'input_tokens',
            );
      }
      return { ok: true, outputLimit: m ?? window - p };
    }
    default: {
      if (m !== undefined && m > window)
        return fail(
          'output_cap',
          `max_completion_tokens is too large: ${m}.This model supports at most ${window} completion tokens.`,
        );
      if (p >= window)
        return fail(
          'context',
          `The input (${p} tokens) is longer than the model's context length (${window} tokens).`,
        );
      if (m !== undefined && p + m >= window)
        return fail(
          'budget',
          `Requested token count exceeds the model's maximum context length of ${window} tokens. You requested a total of ${p + m} tokens: ${p} tokens from the input messages and ${m} tokens for the completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit.`,
        );
      return { ok: true, outputLimit: m ?? window - p };
    }
  }
}

/** vLLM's error body: the flat `ErrorResponse` before 0.10 (and in SGLang), `{"error": …}` after. */
export function vllmErrorBody(
  wording: VllmWording,
  message: string,
  param: string | null,
): Record<string, unknown> {
  if (wording === 'v0' || wording === 'sglang')
    return { object: 'error', message, type: 'BadRequestError', param: null, code: 400 };
  return { error: { message, type: 'BadRequestError', param, code: 400 } };
}
