/**
 * @module
 * The options every adapter takes, and the events it reports.
 */
import type { ClampMode, OverflowPattern, SpillwayEvent, TokenCounter } from '../../core/index.js';

/**
 * Options shared by `spillwayMiddleware` (AI SDK) and both `withSpillway` wrappers.
 *
 * Limits come from the model catalog by provider and model id; `contextLength` and `outputCap`
 * override it. Windows a provider states in an overflow error are learned and win from then on.
 */
export interface SpillwayAdapterOptions {
  /** The model's context window, instead of the catalog's. */
  contextLength?: number;
  /** The model's reply cap, instead of the catalog's. */
  outputCap?: number;
  /** The provider for the catalog lookup (`openai`, `anthropic`, `openrouter`, …); each adapter has a default. */
  provider?: string;
  /** A fixed reply reserve (see `ContextWindowManagerOptions.reserve`). */
  reserve?: number;
  /** Share of the window kept free for estimation error (default 0.03). */
  safetyRatio?: number;
  /** When to set or lower the reply cap (default `auto`: fill it in when the call has none). */
  clamp?: ClampMode;
  /** Count with this instead of Spillway's estimator. */
  counter?: TokenCounter;
  /** The output cap of a compaction summary request, when the recovery chain compacts. */
  summaryMaxTokens?: number;
  /** Overflow rows of your own (`compileOverflowPatterns` from `spillway/overflow`), tried before the catalog. */
  overflowPatterns?: readonly OverflowPattern[];
  /** Receives what the adapter does: fits, cuts, calibration, overflows, recoveries, usage. */
  onEvent?: (event: AdapterEvent) => void;
}

/** What an adapter reports: every event of the send path, tagged with the model. */
export type AdapterEvent = SpillwayEvent & { model: string };
