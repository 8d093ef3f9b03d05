/**
 * @module
 * Compaction that always fits: summary requests fitted to the window (the model is passed in as a
 * function), rolling summaries, the non-LLM fallback, must-keep facts checked without a model,
 * `validateCompaction`, and recallable placeholders with the `recall` tool.
 */

export {
  type CompactionFailureCode,
  type CompactionResult,
  type CompactTranscriptOptions,
  compactTranscript,
  type RequestEstimator,
} from './compact-transcript.js';
export {
  type CompactionLayout,
  compactionLayout,
  compactionUnits,
  HEAD_KEEP_RATIO,
  KEEP_TAIL_RATIO,
} from './compaction-layout.js';
export { fallbackDigest } from './fallback-digest.js';
export {
  appendMissingFacts,
  extractMustKeepFacts,
  MUST_KEEP_LIMITS,
  type MustKeepFacts,
} from './must-keep-facts.js';
export {
  parseRecallArguments,
  RECALL_MAX_CHARS,
  RECALL_TOOL,
  type RecallInput,
  type RecallKind,
  type RecallRecord,
  type RecallResult,
  type RecallSpan,
  recall,
  spanText,
} from './recall.js';
export {
  cutMiddle,
  FULL_TEXT,
  type SerializeLimits,
  SUMMARY_INPUT_LEVELS,
  serializeMessage,
  serializeTranscript,
} from './serialize-transcript.js';
export {
  MAX_SUMMARY_CHUNKS,
  MAX_SUMMARY_FAILURES,
  SHRINK_MARGIN,
  type SummarizeSpanOptions,
  type SummarizeSpanResult,
  shrinkTarget,
  summarizeSpan,
} from './summarize-span.js';
export {
  DEFAULT_SUMMARY_MAX_TOKENS,
  type Summarizer,
  type SummaryUsage,
  summaryOutputCap,
} from './summarizer.js';
export {
  buildSummaryRequest,
  SUMMARY_REQUEST_MARKER,
  SUMMARY_SECTIONS,
  SUMMARY_SYSTEM_PROMPT,
  type SummaryRequestOptions,
} from './summary-prompt.js';
export {
  type CompactionIssueCode,
  type CompactionValidation,
  type ValidateCompactionOptions,
  validateCompaction,
} from './validate-compaction.js';
