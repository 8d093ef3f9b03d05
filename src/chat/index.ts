/**
 * @module
 * `spillway chat`: an agent in the terminal against any OpenAI-compatible or Anthropic endpoint, with
 * built-in file and command tools, MCP servers, a context meter, slash commands, overflow recovery
 * and sessions persisted in the SQLite store.
 *
 * @example
 * import { loadChatConfig } from './chat-config.js';
 * const bridge = createConfirmBridge();
 * const chat = await openChatSession({ config: await loadChatConfig(), flags: { model: 'gpt-4o' }, confirm: bridge.confirm });
 * await runInteractiveChat({ chat, confirm: bridge });
 */
export { type ApprovalAnswer, createApprovalAsker, readApprovalAnswer } from './ask-approval.js';
export { createBuiltinTools } from './builtin-tools.js';
export { cancelledResults } from './cancelled-results.js';
export { meterOf } from './chat-meter.js';
export { type ChatPrinter, createChatPrinter } from './chat-printer.js';
export {
  type ChatModel,
  ChatSession,
  type ChatSessionOptions,
  DEFAULT_MAX_ITERATIONS,
  DEFAULT_SYSTEM_PROMPT,
  type SendOptions,
} from './chat-session.js';
export { type CompactHistoryResult, compactHistory } from './compact-history.js';
export { type ActionRequest, type ConfirmAction, unattendedConfirm } from './confirm-action.js';
export { type ContextBreakdown, contextBreakdown } from './context-breakdown.js';
export { type ContextStatus, contextStatus, type LastExchange, scaleToTotal } from './context-status.js';
export {
  type CreateChatClientOptions,
  createChatClient,
  DEFAULT_BASE_URLS,
  formatForBaseUrl,
  resolveApiKey,
} from './create-chat-client.js';
export { type ChatNotice, describeEvent } from './describe-event.js';
export { explainHttpError, requireApiKey, withErrorHints } from './explain-provider-error.js';
export { createFileTools, LIST_MAX_ENTRIES, READ_MAX_CHARS, SEARCH_MAX_MATCHES } from './file-tools.js';
export { CHAT_HELP, formatContext, formatMeter, formatSessions } from './format-chat.js';
export { formatLimits } from './format-limits.js';
export { formatUsage } from './format-usage.js';
export { emptyLoopState, findSession, loadSessionState } from './load-session-state.js';
export {
  type ChatFlags,
  type OpenChat,
  type OpenChatSessionOptions,
  openChatSession,
} from './open-chat-session.js';
export { PromptAssembler } from './prompt-assembler.js';
export { readPipedPrompt } from './read-piped-prompt.js';
export { replayTurns } from './replay-turns.js';
export { COMMAND_TIMEOUT_MS, type CommandOutput, createRunCommandTool } from './run-command-tool.js';
export {
  type ConfirmBridge,
  createConfirmBridge,
  type InteractiveChatOptions,
  runInteractiveChat,
} from './run-interactive-chat.js';
export { type PrintModeOptions, resultError, runPrintMode } from './run-print-mode.js';
export { runSlashCommand, SLASH_COMMANDS, showResumed } from './run-slash-command.js';
export { type ChatPrices, type UsageFigures, usageCost } from './session-usage.js';
export { resolveWorkspacePath, type WorkspacePath } from './workspace-path.js';
