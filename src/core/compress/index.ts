/**
 * @module
 * Progressive, sticky tool-output compression: four levels per tool result (full, truncated,
 * outline, elided), chosen by pressure, oldest first, never going back down, each level's text
 * stored so the same result renders to the same bytes on every later request.
 */
export {
  applyCompression,
  entryFor,
  type RenderMemo,
  renderedToolMessage,
  renderMessage,
} from './apply-compression.js';
export {
  COMPRESSION_BANDS,
  COMPRESSION_HYSTERESIS,
  COMPRESSION_START,
  type CompressToolOutputsOptions,
  type CompressToolOutputsResult,
  compressToolOutputs,
  newestToolRun,
} from './compress-tool-outputs.js';
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
export { contentHash, entrySource } from './content-hash.js';
export { formatCount } from './format-count.js';
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
