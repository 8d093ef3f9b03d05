/**
 * @module
 * The normalized transcript, its segmentation into head and turns, pairing validation, and the
 * converters from and to OpenAI Chat Completions, OpenAI Responses, Anthropic Messages and Gemini
 * generateContent requests.
 */
export { fromAnthropic, readAnthropicAssistant, toAnthropic } from './anthropic-messages.js';
export { contentParts, contentText } from './content.js';
export { ContentMemo, type ContentMemoOptions, type ReadListOptions } from './content-memo.js';
export { detectFormat } from './detect-format.js';
export { contentHash, digestItems, digestMessages, hashText, ListMemo } from './digest.js';
export { fromGemini, GEMINI_CALL_ID_PREFIX, toGemini } from './gemini-generate-content.js';
export type * from './gemini-wire.js';
export {
  isDepthChecked,
  type JsonDepthExcess,
  jsonTextDepthExcess,
  MAX_JSON_DEPTH,
  markDepthChecked,
  tooDeepMessage,
  valueDepthExceeds,
} from './json-depth.js';
export { type JsonTextRead, readJsonText } from './json-text-memo.js';
export { fromOpenAIChat, readOpenAIMessage, toOpenAIChat } from './openai-chat.js';
export { fromResponses, toResponses } from './openai-responses.js';
export { readRequest, writeRequest } from './read-request.js';
export { requireChatRequest, requireMessages, requireObject } from './require-input.js';
export { type MessageRange, type Segmentation, splitTurns } from './split-turns.js';
export { fitThinkingBudget, MIN_THINKING_BUDGET } from './thinking-budget.js';
export { type CallDeclaration, indexTranscript, type TranscriptIndex } from './transcript-index.js';
export type * from './types.js';
export {
  assertPairing,
  type PairingIssue,
  type PairingIssueKind,
  type PairingResult,
  validatePairing,
} from './validate-pairing.js';
export type * from './wire-bodies.js';
