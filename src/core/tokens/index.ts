/**
 * @module
 * Token estimation: the character-class estimator, per-message caching, chat-template overheads and
 * calibration from provider-reported usage.
 */
export {
  applyCalibration,
  CALIBRATION_WINDOW,
  type Calibration,
  calibratedLowerBound,
  calibrationMargin,
  createCalibration,
  ESTIMATE_OVERCOUNT_CEILING,
  FIRST_MARGIN,
  MAX_CALIBRATION_FACTOR,
  MIN_MARGIN,
  observeCalibration,
  parseCalibration,
  raiseCalibration,
} from './calibration.js';
export { BYTE_LENGTH_CAP, countFeatures, FEATURE_COUNT, FEATURES } from './char-classes.js';
export { type EstimateOptions, estimateTokens } from './estimate-tokens.js';
export { createEstimator, type Estimator } from './estimator.js';
export { EstimateCache } from './message-cache.js';
export {
  addBreakdown,
  emptyBreakdown,
  estimateMessage,
  estimateTools,
  type TokenBreakdown,
} from './message-estimate.js';
export {
  IMAGE_TOKENS,
  MESSAGE_OVERHEAD,
  REQUEST_OVERHEAD,
  TOOL_BLOCK_OVERHEAD,
  TOOL_CALL_OVERHEAD,
  TOOL_DEFINITION_OVERHEAD,
  TOOL_RESULT_OVERHEAD,
} from './overheads.js';
export type { TokenCounter } from './token-counter.js';
export { CONSERVATIVE_FAMILIES, type TokenizerFamily, tokenizerFamilyOf } from './tokenizer-family.js';
