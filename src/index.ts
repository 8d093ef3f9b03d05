/**
 * @module
 * Spillway: keeps LLM agent loops inside the model's context window, and gets them out again when
 * they overflow anyway. The root export is a deliberate list: the send path (the driver and the
 * manager it fits with), counting, classification, recovery and compaction, the converters, the
 * tool loop, the errors and the event types. Integrations live on subpaths (`spillway/openai`,
 * `spillway/anthropic`, `spillway/ai-sdk`, `spillway/proxy`, `spillway/overflow`, …).
 *
 * @example
 * import { ConversationDriver, fromOpenAIChat } from 'spillway';
 * const driver = new ConversationDriver({ contextLength: 128_000, model: 'gpt-4o' });
 * const { request } = driver.fit(fromOpenAIChat(body));
 */

// The send path.
// Counting and limits.
// Classification, recovery and compaction.
// The wire formats.
export {
  type ChatRequest,
  type CompactionResult,
  type Content,
  ContextTruncatedError,
  ContextWindowManager,
  type ContextWindowManagerOptions,
  ConversationDriver,
  type ConversationDriverOptions,
  clampOutputTokens,
  classifyOverflow,
  compactTranscript,
  computeBudget,
  createEstimator,
  type DriverSendResult,
  type DriverState,
  describeRecoveryStep,
  detectFormat,
  estimateTokens,
  type FitResult,
  fromAnthropic,
  fromGemini,
  fromOpenAIChat,
  fromResponses,
  type HistoryChange,
  type ManagerState,
  type Message,
  type OverflowInfo,
  type OverflowKind,
  RECALL_TOOL,
  type RecoveryResult,
  type RecoveryStep,
  type RequestFormat,
  readRequest,
  recall,
  recoverFromOverflow,
  SpillwayError,
  type SpillwayErrorCode,
  type SpillwayEvent,
  type Summarizer,
  splitTurns,
  type TokenCounter,
  type ToolCall,
  type ToolDefinition,
  type Transport,
  type TransportResult,
  toAnthropic,
  toGemini,
  tokenizerFamilyOf,
  toOpenAIChat,
  toResponses,
  type UsageReport,
  validatePairing,
  windowFromOverflow,
  writeRequest,
} from './core/index.js';
// The tool loop and its clients.
export {
  type LoopEvent,
  type LoopResult,
  type LoopTool,
  type RunToolLoopOptions,
  runToolLoop,
} from './loop/index.js';
export { createAnthropicClient, createOpenAICompatibleClient, type ModelClient } from './providers/index.js';
