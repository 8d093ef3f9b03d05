/**
 * @module
 * Spillway: keeps LLM agent loops inside the model's context window, and gets them out again when
 * they overflow anyway. The root is the send path as a caller uses it: the driver (one per
 * conversation) and the send policy that configures it, the converters between the wire formats and
 * the transcript, the errors, and the types of the events and results. The parts the driver is made
 * of are in `spillway/advanced`; integrations are subpaths (`spillway/ai-sdk`, `spillway/openai`,
 * `spillway/anthropic`, `spillway/proxy`, `spillway/loop`, `spillway/overflow`, …).
 *
 * @example
 * import { ConversationDriver, fromOpenAIChat } from 'spillway';
 * const driver = new ConversationDriver({ contextLength: 128_000, model: 'gpt-4o' });
 * const { request } = driver.fit(fromOpenAIChat(body));
 */
export {
  type ChatRequest,
  type Content,
  ContextTruncatedError,
  ConversationDriver,
  type ConversationDriverOptions,
  type CutReport,
  DEFAULT_RESERVE,
  type DriverSendOptions,
  type DriverSendResult,
  type DriverState,
  describeRecoveryStep,
  detectFormat,
  type FitResult,
  fromAnthropic,
  fromGemini,
  fromOpenAIChat,
  fromResponses,
  type HistoryChange,
  type ManagerNotice,
  type MeasureRequest,
  type Message,
  type OverflowInfo,
  type OverflowKind,
  type RecoveryResult,
  type RecoveryStep,
  type RequestFormat,
  readRequest,
  type SendPolicy,
  type SendPolicyOptions,
  type SendSurface,
  SpillwayError,
  type SpillwayErrorCode,
  type SpillwayEvent,
  type Summarizer,
  sendPolicy,
  type TokenCounter,
  type ToolCall,
  type ToolDefinition,
  type Transport,
  type TransportResult,
  type TransportSendOptions,
  toAnthropic,
  toGemini,
  toOpenAIChat,
  toResponses,
  type UsageReport,
  writeRequest,
} from './core/index.js';
