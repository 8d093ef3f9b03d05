/**
 * @module
 * Overflow classification: one ordered catalog of provider error patterns and `classifyOverflow`,
 * which turns any rejection (an `Error`, a JSON body, an SSE error event, SDK-prefixed text) into
 * `context | budget | output_cap | none` with the figures the message states. Imports nothing.
 */
export { OVERFLOW_CATALOG } from './catalog/index.js';
export {
  type ClassifyOverflowOptions,
  classifyOverflow,
  HTTP_413_NEAR_WINDOW_PATTERN,
  NEAR_WINDOW_RATIO,
  NO_MATCH_PATTERN,
  overflowScanText,
  WEAK_EVIDENCE_STATUSES,
} from './classify-overflow.js';
export {
  type ExtractedFigures,
  extractFigures,
  GENERIC_FIGURES_PATTERN,
  GENERIC_FINISH_REASON_PATTERN,
  GENERIC_FITS_PATTERN,
  GENERIC_WORDING_PATTERN,
} from './generic/index.js';
export {
  type CompileLinearPatternOptions,
  type CompileLinearPatternResult,
  compileLinearPattern,
  type LinearMatch,
  type LinearPattern,
  MAX_PROGRAM_SIZE,
  MAX_REPEAT,
  type PatternProblem,
} from './linear/index.js';
export { FIGURE_SOURCE, overflowRegex } from './overflow-regex.js';
export { parseFigure } from './parse-figure.js';
export { MAX_SCAN_CHARS, SCAN_HEAD_CHARS, SCAN_TAIL_CHARS } from './scan-text.js';
export { isSuccessfulAnswer, isSuccessStatus, SUCCESS_STATUS_PATTERN } from './success-answer.js';
export {
  FIGURE_GROUPS,
  type FigureGroup,
  OVERFLOW_KINDS,
  type OverflowFigures,
  type OverflowInfo,
  type OverflowKind,
  type OverflowMatcher,
  type OverflowPattern,
  type OverflowRow,
} from './types.js';
export { windowCheckFromOverflow, windowFromOverflow } from './window-from-overflow.js';
