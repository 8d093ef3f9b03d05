/**
 * @module
 * Configuration validated outside core (zod schemas, checks that need dependencies core may not have).
 */
export {
  type CompileOverflowPatternsOptions,
  compileOverflowPatterns,
  DEFAULT_RECHECK_TIMEOUT_MS,
  MAX_USER_REGEX_LENGTH,
  MAX_USER_ROWS,
  OVERFLOW_PATTERN_ROW,
  OVERFLOW_PATTERNS_CONFIG,
  type OverflowPatternConfig,
  safeCompileOverflowPatterns,
} from './overflow-patterns.js';
