/**
 * @module
 * The inputs and the result of `recoverFromOverflow`: a discriminated union on `action`, and every
 * step it took as data (`RecoveryStep`), so callers and tests read fields, not prose.
 */
import type { CompactionFailureCode, CompactionIssueCode, RecallSpan, Summarizer } from '../compact/index.js';
import type { ContextTruncatedError } from '../errors/index.js';
import type { ContextWindowManager } from '../manager/index.js';
import type { OverflowInfo } from '../overflow/index.js';
import type { ChatRequest, Message } from '../transcript/index.js';

/** What recovery did. */
export type RecoveryAction = RecoveryResult['action'];

/** Why recovery stopped without a request to send. */
export type GiveUpReason =
  /** The rejection is no overflow (rate limit, auth…): recovery has nothing to change. */
  | 'not_overflow'
  /** The provider rejects every output cap, down to 1. */
  | 'every_cap_rejected'
  /** Even the smallest request (system prompt, tool schemas, newest message) cannot fit. */
  | 'floor_does_not_fit'
  /** No step of the chain produced a request that fits. */
  | 'chain_exhausted';

/** One thing recovery did or tried, in order. */
export type RecoveryStep =
  | { step: 'learn_window'; model: string; window: number }
  /** The provider counted more prompt tokens than the estimate: calibration raised. */
  | { step: 'calibrate'; reported: number; estimated: number }
  /**
   * A rejection without figures of a request the count says fits the window: the window is what was
   * wrong. Learned as half the least the prompt counted (`count` says which count that was).
   */
  | {
      step: 'learn_window_from_count';
      model: string;
      window: number;
      prompt: number;
      count: 'trusted' | 'estimate';
    }
  /** vLLM's max_tokens-over-max_model_len: the figure is the window, learned as such. */
  | { step: 'learn_window_from_cap'; window: number }
  | {
      step: 'lower_max_tokens';
      from?: number;
      to: number;
      window: number;
      /** The prompt tokens the new value leaves room for, and where that count came from. */
      input: number;
      /** `lower_bound`: the provider stated a truncated count (vLLM), which the fit did not exceed. */
      inputSource: 'stated' | 'lower_bound' | 'estimate';
    }
  | { step: 'lower_output_cap'; from?: number; to: number; cap: number }
  /** A budget or output-cap overflow that only a smaller prompt can fix. */
  | { step: 'treat_as_context'; reason: 'no_room_for_reply' | 'does_not_fit_window' }
  /** A `max_tokens` made for a larger window, left to the clamp. */
  | { step: 'drop_max_tokens'; maxTokens: number; window: number }
  | {
      step: 'compaction';
      keepTurns?: number;
      outcome: 'ok' | CompactionFailureCode;
      estimate?: number;
      budget?: number;
    }
  | { step: 'forced_prune'; stubbed: number; before: number; after: number; budget: number }
  /**
   * `shorten`: the newest turn alone (the turns before it truncated), its tool results shortened to
   * their start and end; the user's text is kept whole.
   */
  | {
      step: 'truncate' | 'shorten' | 'fallback';
      outcome: 'ok' | 'nothing_fits' | CompactionIssueCode;
      estimate?: number;
      budget: number;
    }
  /** A step's result did not fit when fitted again; the chain went on. */
  | { step: 'refit_failed'; after: 'compacted' | 'truncated' | 'fallback' }
  /** Only the estimate says the smallest request cannot fit: it is sent once for the provider to judge. */
  | { step: 'last_try'; estimate: number; budget: number }
  | { step: 'give_up'; reason: GiveUpReason; estimate?: number; budget?: number };

/** Inputs of `recoverFromOverflow`. */
export interface RecoverFromOverflowOptions {
  /**
   * The request as the caller built it, whole history included: recovery fits it again. A fitted
   * request works too when `history` carries the whole history.
   */
  request: ChatRequest;
  /**
   * The least the rejected request's prompt counts, and whether a trusted count says so (the
   * provider's anchor, a counting endpoint, a verified tokenizer) or only the estimate: what a
   * rejection without figures is learned from.
   */
  promptCount?: { low: number; trusted: boolean };
  /** The whole history, when `request` is the fitted request that was sent (the tool loop passes both). */
  history?: Message[];
  /** How the provider's rejection was classified (`classifyOverflow`, or `ProviderError.overflow`). */
  overflow: OverflowInfo;
  manager: ContextWindowManager;
  /** Writes compaction summaries; without it the chain skips the model steps. */
  summarize?: Summarizer;
  signal?: AbortSignal;
  /** The summary request's output cap (default 16,384; never more than half the window). */
  summaryMaxTokens?: number;
}

interface ResultBase {
  /** What was tried, in order, with each outcome. */
  steps: RecoveryStep[];
  /** The window the overflow stated (already learned by the manager). */
  window?: number;
}

/** The same prompt with a smaller reply cap. */
export interface LoweredCapRecovery extends ResultBase {
  action: 'lower_max_tokens' | 'lower_output_cap';
  /** The fitted request to send once more. */
  request: ChatRequest;
}

/** A history made smaller: summarized, truncated, or reduced to the newest unit. */
export interface ReducedHistoryRecovery extends ResultBase {
  action: 'compacted' | 'truncated' | 'fallback';
  request: ChatRequest;
  /** The history to continue with (kept messages are the same objects). */
  messages: Message[];
  /** Messages of the history that recovery took out: write them to the store (`applyCompaction`). */
  removed: Message[];
  /** The spans behind the placeholders recovery added, for `recall`. */
  recall: RecallSpan[];
}

/** Only the estimate's margin says nothing fits: the smallest request, sent once; the history stays. */
export interface LastTryRecovery extends ResultBase {
  action: 'last_try';
  request: ChatRequest;
}

/** Nothing to send. */
export interface GiveUpRecovery extends ResultBase {
  action: 'give_up';
  reason: GiveUpReason;
  /** What is wrong and what to change. */
  message: string;
  /** For a request nothing can fit: the terminal error, code `context_truncated`. */
  error?: ContextTruncatedError;
}

/** What `recoverFromOverflow` decided. */
export type RecoveryResult = LoweredCapRecovery | ReducedHistoryRecovery | LastTryRecovery | GiveUpRecovery;

/** A recovery that sends something. */
export type RetryRecovery = Exclude<RecoveryResult, GiveUpRecovery>;

/** How a transcript cut of the chain is named in a step's line. */
const CUT_STEP_WORDS = {
  truncate: 'truncated',
  shorten: "newest turn's tool results shortened",
  fallback: 'fallback',
} as const;

/** One line for people about a step (logs, the chat's notices); tests read the fields instead. */
export function describeRecoveryStep(step: RecoveryStep): string {
  switch (step.step) {
    case 'learn_window':
      return `learned window ${step.window} for ${step.model}`;
    case 'learn_window_from_count':
      return `rejected without figures at ${step.count === 'trusted' ? 'a counted' : 'an estimated'} ${step.prompt} prompt tokens, within the window believed: learned window ${step.window} for ${step.model}`;
    case 'learn_window_from_cap':
      return `max_tokens over the model length ${step.window}; learned it as the window`;
    case 'calibrate':
      return `the provider counted ${step.reported} prompt tokens, more than the ${step.estimated} estimated: calibration raised`;
    case 'lower_max_tokens':
      return `max_tokens ${step.from ?? 'unset'} → ${step.to} (window ${step.window}, ${step.inputSource === 'estimate' ? 'estimated' : step.inputSource === 'stated' ? 'stated' : 'at least'} prompt ${step.input})`;
    case 'lower_output_cap':
      return `max_tokens ${step.from ?? 'unset'} → ${step.to} (cap ${step.cap} learned)`;
    case 'treat_as_context':
      return step.reason === 'no_room_for_reply'
        ? 'the window leaves too little room for a reply: treated as context'
        : 'the request does not fit the window either: treated as context';
    case 'drop_max_tokens':
      return `max_tokens ${step.maxTokens} leaves no room in the ${step.window}-token window; left to the clamp`;
    case 'compaction':
      return `${step.keepTurns === undefined ? 'compaction' : `compaction keeping ${step.keepTurns} turns`}: ${step.outcome}${step.estimate === undefined ? '' : ` (${step.estimate} / ${step.budget})`}`;
    case 'forced_prune':
      return `forced prune: ${step.stubbed} tool results stubbed (${step.before} → ${step.after} / ${step.budget})`;
    case 'truncate':
    case 'shorten':
    case 'fallback':
      return `${CUT_STEP_WORDS[step.step]}: ${step.outcome}${step.estimate === undefined ? '' : ` (${step.estimate} / ${step.budget})`}`;
    case 'refit_failed':
      return `${step.after}: the result still does not fit when fitted; next step`;
    case 'last_try':
      return `the smallest request is estimated at ${step.estimate} > ${step.budget}, which the estimate's margin cannot rule out fitting: sent once for the provider to decide`;
    case 'give_up':
      return `giving up: ${step.reason.replaceAll('_', ' ')}${step.estimate === undefined ? '' : ` (${step.estimate} / ${step.budget})`}`;
  }
}
