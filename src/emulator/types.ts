import type { FaultKind, FaultRule } from './faults.js';
import type { EmulatorProfileName, OverflowKind } from './profiles/profile.js';
import type { Script, ScriptReply } from './script.js';
import type { TokenizerName } from './tokenizer.js';

/** Options of `startEmulator`. Sizes are in tokens. */
export interface EmulatorOptions {
  /** The server to emulate. */
  profile: EmulatorProfileName;
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  /** Interface to bind (default `127.0.0.1`). */
  host?: string;
  /** The window the server enforces (`max_model_len`, `n_ctx`, `num_ctx`…); each profile has a default. */
  contextLength?: number;
  /** The server's output cap: OpenAI and Anthropic reject above it; vLLM (generation-config
   * `max_new_tokens`), llama.cpp (`--n-predict`) and Ollama clamp to it; `litellm-vllm` advertises it
   * as `max_output_tokens`. */
  outputCap?: number;
  /** The model id the server reports and echoes. */
  model?: string;
  /** The scripted replies (default: the built-in coding-agent script). */
  script?: Script | ScriptReply[];
  /** `litellm-vllm`: multiplies the advertised and enforced limits (0.1 → 9,600 / 9,600 / 21,000). */
  scale?: number;
  /** Faults to inject, by chat request number or seeded probability. */
  faults?: FaultRule[];
  /** Seed of every generated text, id and random fault (default 0). */
  seed?: number;
  /** The rejection wording: `v0`–`v3` or `sglang` for vLLM profiles, `v1`–`v3` for `llamacpp`. */
  wording?: string;
  /** Tokenizer the prompt and replies are counted with (default `o200k`). */
  tokenizer?: TokenizerName;
}

/** What the emulator saw and did for one HTTP request. */
export interface EmulatorRequestRecord {
  /** 1-based, over all requests. */
  number: number;
  /** 1-based, over chat requests only (the number faults refer to). */
  chatNumber?: number;
  method: string;
  path: string;
  /** The parsed JSON body, or the raw text when it was not JSON (absent when too large). */
  body?: unknown;
  bytes: number;
  stream?: boolean;
  maxTokens?: number;
  /** Prompt tokens the emulator counted for the whole request. */
  promptTokens?: number;
  /** Prompt tokens `usage` reported (fewer than counted when the server truncated the prompt). */
  reportedPromptTokens?: number;
  completionTokens?: number;
  finishReason?: string;
  /** Which scripted reply answered. */
  replyIndex?: number;
  /** The overflow the request was rejected for. */
  overflow?: OverflowKind;
  /** Kind of the bad input it was rejected for. */
  badInput?: string;
  fault?: FaultKind;
  /** Profile-specific facts, such as what a silent truncation dropped. */
  note?: Record<string, unknown>;
  /** HTTP status sent (200 for a stream, even one a fault cut). */
  status: number;
}

/** A running emulator. */
export interface Emulator {
  /** Base URL, e.g. `http://127.0.0.1:49152` (OpenAI SDKs take `${url}/v1`). */
  url: string;
  port: number;
  /** Every request so far, oldest first. */
  requests: EmulatorRequestRecord[];
  /** Stops listening and closes every open connection. */
  close(): Promise<void>;
}
