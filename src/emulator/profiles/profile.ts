import type { TemplateInput } from '../chat-template.js';

/** The servers Spillway emulates. */
export type EmulatorProfileName =
  | 'openai'
  | 'anthropic'
  | 'vllm'
  | 'litellm-vllm'
  | 'llamacpp'
  | 'localai'
  | 'ollama'
  | 'gemini';

/** What an overflow rejection was about, in `classifyOverflow`'s terms. */
export type OverflowKind = 'context' | 'budget' | 'output_cap';

/** A response a profile sends: a JSON body (an object) or raw text (a string). */
export interface HttpReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** What the emulator knows about one chat request once it parsed and counted it. */
export interface ChatRequestFacts {
  body: Record<string, unknown>;
  input: TemplateInput;
  /** Prompt tokens of the whole request as rendered. */
  promptTokens: number;
  /** The requested output cap, if any. */
  maxTokens: number | undefined;
  /** The field it came in (`max_tokens` or `max_completion_tokens`). */
  maxTokensField: string;
  requestNumber: number;
  /** Counts another template input (for profiles that re-render a truncated prompt). */
  count(input: TemplateInput): number;
}

/** A profile's decision on a chat request. */
export type Admission =
  | { accepted: false; kind: OverflowKind; reply: HttpReply }
  | {
      accepted: true;
      /** The prompt tokens `usage` reports (fewer than counted when the server truncated the prompt). */
      reportedPromptTokens: number;
      /** The most completion tokens the generation may use. */
      outputLimit: number;
      /** Facts worth recording (what a silent truncation dropped, for instance). */
      note?: Record<string, unknown>;
    };

/** Malformed requests, each answered with the body the real server sends. */
export type BadInputKind =
  | 'malformed_json'
  | 'not_object'
  | 'missing_messages'
  | 'invalid_messages'
  | 'empty_messages'
  | 'unknown_role'
  | 'missing_max_tokens'
  | 'invalid_max_tokens'
  | 'too_large'
  | 'not_found';

/** Details a bad-input body may quote. */
export interface BadInputDetail {
  body?: unknown;
  error?: string;
  index?: number;
  role?: unknown;
  method?: string;
  path?: string;
  bytes?: number;
  requestNumber?: number;
}

/** Injected failures a profile renders in its own envelope. */
export type FailureKind = 'rate_limit' | 'server_error' | 'unavailable';

/** Everything that differs between emulated servers. */
export interface Profile {
  name: EmulatorProfileName;
  format: 'openai' | 'anthropic';
  model: string;
  /** The window the server enforces, in tokens. */
  contextLength: number;
  /** The server's own output cap, when it has one. */
  outputCap: number | undefined;
  chatPath: '/v1/chat/completions' | '/v1/messages' | '/v1beta/openai/chat/completions';
  /** Whether the server also answers the OpenAI Responses API (`POST /v1/responses`). */
  servesResponses?: boolean;
  /** Whether the server answers the Gemini API (`POST /v1beta/models/{model}:generateContent`, …). */
  servesGemini?: boolean;
  /** Roles the endpoint accepts; when absent, any role reaches the chat template. */
  roles?: readonly string[];
  /** Whether an empty `messages` array is a 400 (it is rendered as a bare system turn otherwise). */
  rejectsEmptyMessages?: boolean;
  /** OpenAI-format replies: the field that carries reasoning text (absent: reasoning is not returned). */
  reasoningField?: 'reasoning_content' | 'reasoning';
  systemFingerprint?: string | null;
  /** The `usage` object of a reply. */
  usage(promptTokens: number, completionTokens: number, reasoningTokens: number): Record<string, unknown>;
  /** Checks the profile adds to the common ones (Anthropic's required `max_tokens`, for instance). */
  validate?(body: Record<string, unknown>, detail: BadInputDetail): HttpReply | undefined;
  admit(facts: ChatRequestFacts): Admission;
  badInput(kind: BadInputKind, detail: BadInputDetail): HttpReply;
  failure(
    kind: FailureKind,
    detail: { retryAfter: number; status?: number; requestNumber: number },
  ): HttpReply;
  /** Other endpoints, keyed `"GET /v1/models"`. */
  routes: Record<string, (request: RouteRequest) => HttpReply>;
}

/** What a route gets: the parsed body, and the emulator's own tokenizer and template to count with. */
export interface RouteRequest {
  /** The parsed JSON body; `undefined` when there was none or it was not JSON. */
  body: unknown;
  /** Prompt tokens of a template input, exactly as a chat request's `usage` would report them. */
  count(input: TemplateInput): number;
  /** Token ids of text; with `parseSpecial`, `<|im_start|>` and `<|im_end|>` are their special ids. */
  encode(text: string, options: { parseSpecial: boolean }): number[];
}

/** Options every profile factory takes. */
export interface ProfileOptions {
  model?: string;
  contextLength?: number;
  outputCap?: number;
  scale?: number;
  wording?: string;
  seed: number;
}

/** The OpenAI error envelope, which most OpenAI-compatible servers copy. */
export function openAIErrorBody(
  message: string,
  type: string | null,
  param: string | null = null,
  code: string | number | null = null,
): { error: { message: string; type: string | null; param: string | null; code: string | number | null } } {
  return { error: { message, type, param, code } };
}

/** A fixed `created` timestamp (2025-01-01T00:00:00Z) for model lists, so bodies are byte-stable. */
export const MODEL_CREATED = 1_735_689_600;
