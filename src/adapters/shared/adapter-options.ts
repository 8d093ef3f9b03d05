/**
 * @module
 * The options every adapter takes, and the events it reports.
 */
import type {
  ClampMode,
  ContextWindowManager,
  ManagerEvent,
  OverflowKind,
  TokenCounter,
} from '../../core/index.js';

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
  /**
   * Use this manager for every model instead of one per model built from the catalog. Its own
   * options (window, cap, reserve) then apply, and `contextLength` / `outputCap` here are ignored.
   */
  manager?: ContextWindowManager;
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
  /** Receives what the adapter does: fits, prunes, calibration, overflows, recoveries, usage. */
  onEvent?: (event: AdapterEvent) => void;
}

/** What an adapter reports: the manager's own events plus the provider side of each call. */
export type AdapterEvent =
  | (ManagerEvent & { model: string })
  /** The provider rejected a fitted request as too large. */
  | {
      type: 'overflow';
      model: string;
      kind: Exclude<OverflowKind, 'none'>;
      pattern: string;
      status?: number;
    }
  /** What the recovery did about an overflow; `action: 'give_up'` ends the call with the error. */
  | { type: 'recovery'; model: string; action: string; steps: string[]; message?: string }
  /** Prompt tokens the provider reported, fed back to the manager. */
  | { type: 'usage'; model: string; promptTokens: number; completionTokens?: number };
