/**
 * @module
 * Silent truncation: a server that cuts a long prompt down to its window and answers 200 (Ollama
 * keeps the system messages and the newest messages within `num_ctx`) shows it only in `usage`.
 * Spillway's estimator over-counts (about 1.1–2.5× per content class, never under), so "reported
 * below the estimate" is normal; what is not normal is a report below the fewest tokens the request
 * could possibly take. Two lower bounds, both immune to the over-count:
 *
 * - absolute: `raw / MAX_OVERCOUNT_RATIO` (the estimator never over-counts a whole request by 4×;
 *   its worst class aggregate is 2.5×), used only when every part of the request is text the
 *   server must render (no images, documents or reasoning, which templates may drop or price apart);
 * - anchored: the previous request's reported count plus `appendedRaw / MAX_OVERCOUNT_RATIO`, when
 *   this request is the previous one plus an assistant reply and tool results (no new user message:
 *   some templates drop earlier reasoning when the user speaks again). A prompt that grew cannot
 *   count fewer tokens than before.
 *
 * A report below the larger bound, less a small slack for template differences, is a truncation.
 */
import type { Message } from '../transcript/index.js';

/** The most Spillway's estimator over-counts a whole request (worst class aggregate: 2.5×, CJK). */
export const MAX_OVERCOUNT_RATIO = 4;

/** Tokens a report may fall below the bound without being called a truncation (template drift). */
export const TRUNCATION_SLACK_TOKENS = 64;

/** Share of the bound a report may fall below it without being called a truncation. */
export const TRUNCATION_SLACK_RATIO = 0.02;

/** Inputs of {@link detectSilentTruncation}. */
export interface DetectSilentTruncationOptions {
  /** Prompt tokens the server reported for the request (cached tokens included). */
  reported: number;
  /** Raw (uncalibrated) estimate of the whole request; omit when it holds images, documents or reasoning. */
  raw?: number;
  /** When the request extends the previous one by an assistant reply and tool results only. */
  anchor?: {
    /** Prompt tokens reported for the previous request. */
    reported: number;
    /** Raw estimate of the appended tool results (text only). */
    appendedRaw: number;
  };
  /** The window the server is known to enforce (a discovered `num_ctx`), if any. */
  knownWindow?: number;
}

/** The verdict of {@link detectSilentTruncation}. */
export interface SilentTruncationCheck {
  truncated: boolean;
  reported: number;
  /** The fewest prompt tokens the request could take. */
  expectedAtLeast: number;
  /** The window to learn: the known window, else the reported count (what the server kept). */
  window?: number;
}

/**
 * Whether the server truncated the prompt it reported `reported` tokens for. Pure and deterministic.
 *
 * @example
 * detectSilentTruncation({ reported: 4_096, raw: 40_000 });
 * // { truncated: true, reported: 4096, expectedAtLeast: 10000, window: 4096 }
 * detectSilentTruncation({ reported: 3_100, anchor: { reported: 3_800, appendedRaw: 2_400 } }).truncated; // true
 */
export function detectSilentTruncation({
  reported,
  raw,
  anchor,
  knownWindow,
}: DetectSilentTruncationOptions): SilentTruncationCheck {
  const absolute = raw !== undefined && raw > 0 ? Math.floor(raw / MAX_OVERCOUNT_RATIO) : 0;
  const anchored =
    anchor !== undefined && anchor.reported > 0
      ? anchor.reported + Math.floor(Math.max(0, anchor.appendedRaw) / MAX_OVERCOUNT_RATIO)
      : 0;
  const expectedAtLeast = Math.max(absolute, anchored);
  const slack = Math.max(TRUNCATION_SLACK_TOKENS, Math.ceil(expectedAtLeast * TRUNCATION_SLACK_RATIO));
  const truncated = reported > 0 && expectedAtLeast > 0 && reported < expectedAtLeast - slack;
  if (!truncated) return { truncated, reported, expectedAtLeast };
  const window = knownWindow !== undefined && knownWindow >= reported ? knownWindow : reported;
  return { truncated, reported, expectedAtLeast, window };
}

/** Assistant fields that carry reasoning on the OpenAI wire (`reasoning_content`, `reasoning`, `thinking`). */
const REASONING_FIELD = /reason|think/i;

/**
 * Whether messages hold parts whose real token count the estimate cannot bound: images (priced at a
 * guess), opaque blocks (documents, audio) and reasoning (which chat templates often drop from
 * earlier turns). `images` tells images apart, for the tokenizer ratio.
 */
export function hasUncountableContent(messages: readonly Message[]): {
  uncountable: boolean;
  images: boolean;
} {
  let uncountable = false;
  for (const message of messages) {
    if (
      message.role === 'assistant' &&
      message.extra &&
      Object.keys(message.extra).some((key) => REASONING_FIELD.test(key))
    )
      uncountable = true;
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'image') return { uncountable: true, images: true };
      if (part.type !== 'text') uncountable = true;
    }
  }
  return { uncountable, images: false };
}

/** A notice about a silent truncation, for the caller to show. */
export interface SilentTruncationNotice {
  code: 'silent_truncation';
  level: 'warning';
  message: string;
  model?: string;
  reported: number;
  expectedAtLeast: number;
  /** The window Spillway budgets for from now on, when the figure was plausible. */
  window?: number;
}

/** The notice for a detected truncation. */
export function silentTruncationNotice({
  check,
  model,
  learned,
}: {
  check: SilentTruncationCheck;
  model?: string;
  /** Whether the window was learned (plausible and smaller than the one in force). */
  learned: boolean;
}): SilentTruncationNotice {
  const who = model === undefined ? 'the server' : `the server running ${model}`;
  const then =
    learned && check.window !== undefined
      ? `Spillway now budgets for a ${check.window}-token window`
      : 'Spillway keeps its window';
  return {
    code: 'silent_truncation',
    level: 'warning',
    message: `${who} silently truncated the prompt: it reported ${check.reported} prompt tokens for a request that takes at least ${check.expectedAtLeast}, so the oldest messages never reached the model; ${then}. Raise the server's window (Ollama: num_ctx or OLLAMA_CONTEXT_LENGTH) or configure contextLength`,
    ...(model === undefined ? {} : { model }),
    reported: check.reported,
    expectedAtLeast: check.expectedAtLeast,
    ...(learned && check.window !== undefined ? { window: check.window } : {}),
  };
}
