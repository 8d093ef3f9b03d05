/**
 * @module
 * Sticky tool-result compression: the levels a result can be rendered at (full, truncated, outline,
 * elided), each level's text stored so the same result renders to the same bytes on every later
 * request, and elision of the oldest results for a cut.
 */
export {
  applyCompression,
  entryFor,
  type RenderMemo,
  renderedToolMessage,
  renderMessage,
  sourceOf,
} from './apply-compression.js';
export {
  type CompressedResult,
  type CompressedResults,
  compressedResults,
  firstResultFrom,
} from './compressed-results.js';
export {
  COMPRESSION_LEVELS,
  type CompressedLevel,
  type CompressionEntry,
  type CompressionLevel,
  type CompressionState,
  createCompressionState,
  levelRank,
  type PruneMarkerState,
  parseCompressionState,
} from './compression-state.js';
export { entrySource } from './content-hash.js';
export { type NamesOnlyInOptions, namesOnlyIn } from './cut-names.js';
export {
  type ElideToolResultsOptions,
  type ElideToolResultsResult,
  elideToolResults,
  elisionOrder,
  newestToolRun,
} from './elide-tool-results.js';
export { formatCount } from './format-count.js';
export { type LedgerEntry, ledgerBack, ledgerEntries, ledgerEntry } from './ledger-entry.js';
export { MAX_REREADS_AFTER_CUT, type OutputUsesOptions, outputUses } from './output-relevance.js';
export {
  MAX_KEPT_LINE_CHARS,
  type RenderInput,
  renderLevel,
  TRUNCATED_HEAD_LINES,
  TRUNCATED_TAIL_LINES,
} from './render-level.js';
export {
  callArguments,
  callPath,
  describeToolCall,
  indexToolCalls,
  primaryArgument,
  staleReads,
} from './tool-activity.js';
