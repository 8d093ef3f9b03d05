/**
 * @module
 * The window an agent is told before launch, and what each agent's own setting makes of it. Every
 * agent compacts its own history with an LLM-written summary, which keeps more than any cut; it can
 * only do so at the right time when it knows the window the server really enforces. Where an
 * agent's setting cannot say the whole truth (it only lowers a built-in value, or has a floor),
 * {@link WindowSetting.note} says so.
 */

/** The limits of the model the agent will use, as the proxy resolved them. */
export interface AgentWindow {
  model: string;
  /** The window the server enforces, in tokens. */
  contextLength: number;
  /** The most tokens a reply may have, when known. */
  outputCap?: number;
  /** Where the window came from (`discovered:vllm`, `config`, `catalog`, …). */
  source: string;
}

/** One setting an agent was given, as it was given (read back in tests and the wrap log). */
export interface WindowSetting {
  /** The agent's own name for it (`CLAUDE_CODE_AUTO_COMPACT_WINDOW`, `limit.context`, …). */
  setting: string;
  value: number;
  /** What the agent makes of the value, where that is not simply the value. */
  note?: string;
}

/**
 * Codex compacts once its prompt passes `model_auto_compact_token_limit`; Spillway asks for it at
 * 90% of the window, which leaves the rest for the reply and the next tool output.
 */
export const CODEX_COMPACT_SHARE = 0.9;

/**
 * opencode's `limit` needs an output figure with the context; when the server states none and the
 * user set none, a quarter of the window, so a reply always has room.
 */
export const OPENCODE_OUTPUT_SHARE = 0.25;

/**
 * Claude Code 2.1.332 reads `CLAUDE_CODE_AUTO_COMPACT_WINDOW` below 100,000 as 100,000 ("so Claude
 * Code treats it as the 100k minimum", its own warning) and takes the smaller of it and the
 * model's known window.
 */
export const CLAUDE_AUTO_COMPACT_MINIMUM = 100_000;

/**
 * Gemini CLI compresses its history once the last prompt passes `model.compressionThreshold` (a
 * fraction, default 0.5: `DEFAULT_COMPRESSION_TOKEN_THRESHOLD` in
 * `packages/core/src/context/chatCompressionService.ts`) of its built-in `tokenLimit(model)`.
 */
export const GEMINI_COMPRESSION_SHARE = 0.5;

/**
 * Gemini CLI's built-in window by model (`packages/core/src/core/tokenLimits.ts`, 0.61.0): Gemma 4
 * models 256,000, every other model 1,048,576.
 */
export function geminiTokenLimit(model: string): number {
  return /^gemma-4-/.test(model) ? 256_000 : 1_048_576;
}
