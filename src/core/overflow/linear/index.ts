/**
 * @module
 * Linear-time patterns: a documented subset of JavaScript regular expressions run by a Thompson NFA.
 */
export { MAX_PROGRAM_SIZE } from './compile-program.js';
export {
  type CompileLinearPatternOptions,
  type CompileLinearPatternResult,
  compileLinearPattern,
  type LinearMatch,
  type LinearPattern,
} from './linear-pattern.js';
export { MAX_REPEAT, type PatternProblem } from './parse-pattern.js';
