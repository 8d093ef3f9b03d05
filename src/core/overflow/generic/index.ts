/**
 * @module
 * The generic layer: figures and words of a rejection no catalog row recognized.
 */
export {
  type ClassifyGenericOptions,
  classifyGeneric,
  GENERIC_FIGURES_PATTERN,
  GENERIC_FINISH_REASON_PATTERN,
  GENERIC_FITS_PATTERN,
  GENERIC_WORDING_PATTERN,
} from './classify-generic.js';
export { type ExtractedFigures, extractFigures } from './extract-figures.js';
export { MAX_FIGURE_CANDIDATES } from './figure-candidates.js';
export { type InferKindOptions, inferKind } from './infer-kind.js';
export {
  kindFromWords,
  NEAR_MISS_GATES,
  NEAR_MISS_STATUSES,
  nearMissGate,
  OUTPUT_TRUNCATED_GATE,
} from './vocabulary.js';
