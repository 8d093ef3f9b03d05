/**
 * @module
 * `spillway/overflow`: classify any provider rejection as `context | budget | output_cap | none`
 * with the figures it states, and add rows of your own. The same classifier every Spillway surface
 * uses; user rows (`compileOverflowPatterns`) are accepted by the driver, the adapters, the proxy
 * and the chat alike.
 *
 * @example
 * import { classifyOverflow, compileOverflowPatterns } from 'spillway/overflow';
 * const patterns = compileOverflowPatterns([{ name: 'acme', kind: 'context', regex: 'prompt of (?<input>\\d+) exceeds (?<window>\\d+)' }]);
 * classifyOverflow({ status: 400, body: 'prompt of 9000 exceeds 8192', patterns }); // { kind: 'context', input: 9000, window: 8192, … }
 */
export {
  type CompileOverflowPatternsOptions,
  compileOverflowPatterns,
  type OverflowPatternConfig,
  safeCompileOverflowPatterns,
} from '../config/overflow-patterns.js';
export {
  type ClassifyOverflowOptions,
  type CompileLinearPatternResult,
  classifyOverflow,
  extractFigures,
  type LinearPattern,
  OVERFLOW_CATALOG,
  OVERFLOW_KINDS,
  type OverflowFigures,
  type OverflowInfo,
  type OverflowKind,
  type OverflowMatcher,
  type OverflowPattern,
  type OverflowRow,
  type PatternProblem,
  windowFromOverflow,
} from '../core/index.js';
