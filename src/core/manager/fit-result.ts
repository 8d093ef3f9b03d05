/**
 * @module
 * What `fit` returns and what the manager reports of a cut.
 */
import type { RecallSpan } from '../compact/index.js';
import type { TokenBreakdown } from '../tokens/index.js';
import type { ChatRequest } from '../transcript/index.js';
import type { ManagerNotice } from './manager-notice.js';
import type { CountSource, FitVerdict } from './request-count.js';

/** How a fit cut the request, if it did. */
export interface CutReport {
  /**
   * `none`: sent as it came. `sticky`: the run's earlier cut, nothing new. Otherwise what this fit
   * did: `elide` old tool results, `drop` old turns, `shorten` the newest turn's tool results, or a
   * combination (`elide+drop`, `drop+shorten`…).
   */
  kind: 'none' | 'sticky' | CutAction;
  /** Tokens this fit took out (the estimate before minus after). */
  freed: number;
  /** Whole turns left out (the earlier cut's included). */
  droppedTurns: number;
  /** Tool results elided by this fit. */
  elided: number;
  /** Tool results of the newest turn shortened by this fit. */
  shortened: number;
}

/** The cuts a fit can make, alone or together. */
export type CutAction =
  | 'elide'
  | 'drop'
  | 'elide+drop'
  | 'shorten'
  | 'elide+shorten'
  | 'drop+shorten'
  | 'elide+drop+shorten';

/** A fitted request and what fitting it did. */
export interface FitResult {
  /** The request to send: same format and fields as the input, cut where it had to be, `max_tokens` set. */
  request: ChatRequest;
  /** Prompt tokens of the fitted request, at most (see `countSource`). */
  estimate: number;
  /** Where the count came from: the provider's figure plus what was appended, an exact tokenizer, or the estimate. */
  countSource: CountSource;
  /**
   * `fits`; or `uncertain`: only a margin (the estimate's, or a measured count's template margin)
   * says the request may not fit, and it goes out for the provider to judge (a counting endpoint can
   * settle it first).
   */
  verdict: Exclude<FitVerdict, 'over'>;
  /**
   * Prompt tokens the window allows this count: `window - reserve - safety` for an estimate,
   * `window - reserve - COUNTED_MARGIN` for a measured count (`anchored`, `exact`).
   */
  budget: number;
  window: number;
  reserve: number;
  /** Estimated tokens of the tool schemas alone. */
  schemaTokens: number;
  cut: CutReport;
  /** Whether any turn is left out. */
  pruned: boolean;
  droppedTurns: number;
  /** Where the estimate came from: the raw breakdown (uncalibrated) of the fitted request. */
  breakdown: TokenBreakdown;
  /** True when the estimate was anchored on the provider's count for the previous request. */
  anchored: boolean;
  /** Notices this fit raised (a tool-schema floor crossing a level), also sent as `notice` events. */
  notices: ManagerNotice[];
  /** Tool results elided by this fit. */
  compressed: number;
  /** The spans behind every placeholder in the fitted request, for the `recall` tool. */
  recall: RecallSpan[];
}
