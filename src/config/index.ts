/**
 * @module
 * What the chat and proxy configurations share, validated outside core (zod schemas, checks that need
 * dependencies core may not have): overflow rows, limit settings, cross-key checks, one shape-error
 * formatter. Each app keeps its own configuration beside it (`src/chat/chat-config.ts`,
 * `src/proxy/proxy-config.ts`).
 */
export {
  type CompileOverflowPatternsOptions,
  compileConfiguredOverflowPatterns,
  compileOverflowPatterns,
  MAX_USER_REGEX_LENGTH,
  MAX_USER_ROWS,
  type OverflowPatternConfig,
  safeCompileOverflowPatterns,
} from './overflow-patterns.js';
