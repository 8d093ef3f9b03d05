/**
 * @module
 * Token estimation: the character-class estimator, per-message caching, chat-template overheads and
 * calibration from provider-reported usage.
 */
export {
  appendedUpperBound,
  applyCalibration,
  CALIBRATION_WINDOW,
  type Calibration,
  type CalibrationInput,
  type CalibrationSample,
  calibratedLowerBound,
  calibrationMargin,
  calibrationsAgree,
  createCalibration,
  ESTIMATE_OVERCOUNT_CEILING,
  FIRST_MARGIN,
  MAX_CALIBRATION_FACTOR,
  MIN_CALIBRATION_FACTOR,
  MIN_MARGIN,
  MIN_SHARE_SPREAD,
  observeCalibration,
  parseCalibration,
  raiseCalibration,
  restartCalibration,
  scalarFactor,
  withTokenizerCheck,
} from './calibration.js';
export { BYTE_LENGTH_CAP, countFeatures, FEATURE_COUNT, FEATURES } from './char-classes.js';
export { type EstimateOptions, estimateTokens } from './estimate-tokens.js';
export { createEstimator, type Estimator } from './estimator.js';
export {
  anthropicImageTokens,
  type ImageCostRule,
  imageCostRuleOf,
  imageDimensions,
  imageTokens,
  openAIImageTokens,
} from './image-tokens.js';
export { LruCache, type LruCacheOptions } from './lru-cache.js';
export { EstimateCache, estimateCacheFor, lastQueryIndex } from './message-cache.js';
export {
  addBreakdown,
  calibrationInputOf,
  countMessage,
  emptyBreakdown,
  estimateMessage,
  estimateTools,
  type MessageCount,
  type RenderCosts,
  type TokenBreakdown,
} from './message-estimate.js';
export {
  CHATML_TEMPLATE,
  type ChatTemplateCosts,
  ESTIMATOR_TEMPLATE,
  IMAGE_TOKENS,
  MESSAGE_OVERHEAD,
  openAIChatTemplate,
  REQUEST_OVERHEAD,
  TOOL_BLOCK_OVERHEAD,
  TOOL_CALL_OVERHEAD,
  TOOL_DEFINITION_OVERHEAD,
  TOOL_RESULT_OVERHEAD,
} from './overheads.js';
export { splitForTokenizer, TOKENIZER_CHUNK_BYTES } from './split-for-tokenizer.js';
export type { TokenCounter } from './token-counter.js';
export {
  checkTokenizer,
  createTokenizerCheck,
  MIN_TOKENIZER_SPREAD,
  parseTokenizerCheck,
  REPORTS_TO_VERIFY,
  TOKENIZER_AGREEMENT,
  TOKENIZER_SLACK_TOKENS,
  type TokenizerCheck,
  type TokenizerDemotedNotice,
  type TokenizerStatus,
  tokenizerDemotedNotice,
  tokenizerSpread,
} from './tokenizer-check.js';
export { CONSERVATIVE_FAMILIES, type TokenizerFamily, tokenizerFamilyOf } from './tokenizer-family.js';
