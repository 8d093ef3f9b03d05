/**
 * @module
 * Silent truncation: a server that cuts a long prompt down to its window and answers 200 (Ollama
 * keeps the system messages and the newest messages within `num_ctx`) shows it only in `usage`.
 * A report below what the request must take is a truncation only on trusted evidence, since a false
 * alarm would shrink the window of a conversation that never overflowed:
 *
 * - anchored: the previous request's reported count plus `appendedRaw / MAX_APPENDED_OVERCOUNT`, when
 *   this request is the previous one plus an assistant reply and tool results (no new user message:
 *   some templates drop earlier reasoning when the user speaks again). A prompt that grew cannot
 *   count fewer tokens than the provider counted before.
 * - counted: a count by a counter trusted to count as the provider does, less its error; or by a
 *   local tokenizer not yet verified, divided by {@link FAMILY_SPREAD} (tokenizer families differ,
 *   but not by that much).
 *
 * Spillway's estimate alone says only that a truncation is *suspected* (`raw / MAX_OVERCOUNT_RATIO`,
 * used only when every part of the request is text the server must render): the estimator
 * over-counts some scripts by nearly 4× (Chinese against o200k: 3.79× median), so nothing is learned
 * from it until a count confirms it.
 */
import type { Message } from '../transcript/index.js';

/** How far the estimator may over-count a whole request: a report below raw / this is suspicious. */
export const MAX_OVERCOUNT_RATIO = 4;

/**
 * How far the estimate of appended text may over-count it, for the anchored bound: twice the worst
 * class aggregate seen (CJK), so no script makes a growing prompt look truncated.
 */
export const MAX_APPENDED_OVERCOUNT = 8;

/**
 * How far apart two tokenizer families' counts of the same request may be: measured 1.27–1.30×
 * between Llama 2 / Mistral v0.1 and o200k on mixed text, more on CJK (`ESTIMATION.md`).
 */
export const FAMILY_SPREAD = 2;

/** Tokens a report may fall below the bound without being called a truncation (template drift). */
export const TRUNCATION_SLACK_TOKENS = 64;

/** Share of the bound a report may fall below it without being called a truncation. */
export const TRUNCATION_SLACK_RATIO = 0.02;

/** Inputs of {@link detectSilentTruncation}. */
export interface DetectSilentTruncationOptions {
  /** Prompt tokens the server reported for the request (cached tokens included). */
  reported: number;
  /**
   * Raw (uncalibrated) estimate of the whole request; omit when it holds images, documents or
   * reasoning. Evidence of a suspicion only.
   */
  raw?: number;
  /** When the request extends the previous one by an assistant reply and tool results only. */
  anchor?: {
    /** Prompt tokens reported for the previous request. */
    reported: number;
    /** Raw estimate of the appended tool results (text only). */
    appendedRaw: number;
  };
  /**
   * A count of the whole request by a local counter: `spread` is its relative error for a counter
   * trusted to count as the provider does; `verified: false` for a tokenizer guessed from the model id.
   */
  counted?: { tokens: number; spread: number; verified: boolean };
  /** The window the server is known to enforce (a discovered `num_ctx`), if any. */
  knownWindow?: number;
}

/** The verdict of {@link detectSilentTruncation}. */
export interface SilentTruncationCheck {
  /** The report is below what trusted evidence says the request takes. */
  truncated: boolean;
  /** Only the estimate says so: nothing is learned until a count confirms it. */
  suspected: boolean;
  reported: number;
  /** The fewest prompt tokens the request could take, by the strongest evidence at hand. */
  expectedAtLeast: number;
  /** The window to learn: the known window, else the reported count (what the server kept). */
  window?: number;
}

/**
 * Whether the server truncated the prompt it reported `reported` tokens for. Pure and deterministic.
 *
 * @example
 * detectSilentTruncation({ reported: 3_100, anchor: { reported: 3_800, appendedRaw: 2_400 } }).truncated; // true
 * detectSilentTruncation({ reported: 4_096, raw: 40_000 }); // suspected, not truncated: only the estimate says so
 */
export function detectSilentTruncation({
  reported,
  raw,
  anchor,
  counted,
  knownWindow,
}: DetectSilentTruncationOptions): SilentTruncationCheck {
  const anchored =
    anchor !== undefined && anchor.reported > 0
      ? anchor.reported + Math.floor(Math.max(0, anchor.appendedRaw) / MAX_APPENDED_OVERCOUNT)
      : 0;
  const fromCount =
    counted !== undefined && counted.tokens > 0
      ? Math.floor(
          counted.verified
            ? counted.tokens * (1 - Math.max(0, counted.spread))
            : counted.tokens / FAMILY_SPREAD,
        )
      : 0;
  const trusted = Math.max(anchored, fromCount);
  const estimated = raw !== undefined && raw > 0 ? Math.floor(raw / MAX_OVERCOUNT_RATIO) : 0;
  const below = (bound: number) =>
    reported > 0 &&
    bound > 0 &&
    reported < bound - Math.max(TRUNCATION_SLACK_TOKENS, Math.ceil(bound * TRUNCATION_SLACK_RATIO));
  const truncated = below(trusted);
  // A count that agrees with the report clears the estimate's suspicion.
  const suspected = !truncated && fromCount === 0 && below(estimated);
  const expectedAtLeast = truncated ? trusted : Math.max(trusted, suspected ? estimated : 0);
  if (!truncated) return { truncated, suspected, reported, expectedAtLeast };
  const window = knownWindow !== undefined && knownWindow >= reported ? knownWindow : reported;
  return { truncated, suspected, reported, expectedAtLeast, window };
}

/** Assistant fields that carry reasoning on the OpenAI wire (`reasoning_content`, `reasoning`, `thinking`). */
const REASONING_FIELD = /reason|think/i;

/** Whether an assistant message's wire fields name reasoning (read without listing them). */
function hasReasoningField(extra: object): boolean {
  for (const key in extra) if (Object.hasOwn(extra, key) && REASONING_FIELD.test(key)) return true;
  return false;
}

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
    if (message.role === 'assistant' && message.extra && hasReasoningField(message.extra)) uncountable = true;
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

/**
 * A report only the estimate finds too small: nothing was learned. A caller that can count the
 * request (a server's counting endpoint) confirms or clears it with `confirmTruncation`.
 */
export interface SuspectedTruncationNotice {
  code: 'suspected_truncation';
  level: 'info';
  message: string;
  model?: string;
  reported: number;
  /** What the estimate says the request takes at least: evidence of a suspicion, not a count. */
  estimatedAtLeast: number;
}

/** The notice for a suspicion the estimate alone raised. */
export function suspectedTruncationNotice({
  check,
  model,
}: {
  check: SilentTruncationCheck;
  model?: string;
}): SuspectedTruncationNotice {
  const who = model === undefined ? 'the server' : `the server running ${model}`;
  return {
    code: 'suspected_truncation',
    level: 'info',
    message: `${who} reported ${check.reported} prompt tokens for a request Spillway estimates at ${check.expectedAtLeast} or more; only the estimate says the prompt was cut (it over-counts some scripts nearly 4×), so the window is kept until a count or the next report confirms it`,
    ...(model === undefined ? {} : { model }),
    reported: check.reported,
    estimatedAtLeast: check.expectedAtLeast,
  };
}
