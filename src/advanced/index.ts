/**
 * @module
 * `spillway/advanced`: the parts the driver is made of, for callers who drive the sends themselves
 * and want one step at a time: the manager that fits a request, recovery and compaction, the
 * budget and the clamp, the estimator, calibration and the transcript's structure. Everything here
 * the driver already does for you; reach for it when you own the loop.
 *
 * @example
 * import { ContextWindowManager } from 'spillway/advanced';
 * const manager = new ContextWindowManager({ contextLength: 32_768, model: 'qwen2.5-coder' });
 * const { request, verdict } = manager.fit(fromOpenAIChat(body));
 */
export {
  type Budget,
  type CalibrationInput,
  type CompactionResult,
  type CompactTranscriptOptions,
  ContextWindowManager,
  type ContextWindowManagerOptions,
  clampOutputTokens,
  compactTranscript,
  computeBudget,
  createCalibration,
  createEstimator,
  detectSilentTruncation,
  estimateTokens,
  type ManagerEvent,
  type ManagerState,
  observeCalibration,
  RECALL_TOOL,
  type RecoverFromOverflowOptions,
  type RequestMeasure,
  recall,
  recoverFromOverflow,
  type Segmentation,
  splitTurns,
  tokenizerFamilyOf,
  validatePairing,
} from '../core/index.js';
