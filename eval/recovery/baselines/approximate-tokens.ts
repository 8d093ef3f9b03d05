/**
 * The character-based counts the baselines use, as their projects define them: tokens are characters
 * / 4, over a message's text plus its tool calls' JSON (LangChain's `countTokensApproximately`,
 * langchainjs `libs/langchain/src/agents/middleware/utils.ts`; pi's `estimateTokens`,
 * pi-mono `packages/coding-agent/src/core/compaction/compaction.ts`; opencode's `Token.estimate`).
 */
import { contentText, type Message } from '../../../src/core/index.js';

/** Characters a message is counted by: its text, its tool calls' names and arguments, its call id. */
export function messageChars(message: Message): number {
  let chars = contentText(message.content).length;
  if (message.role === 'assistant')
    for (const call of message.toolCalls ?? []) chars += call.name.length + call.arguments.length;
  if (message.role === 'tool') chars += message.toolCallId.length;
  return chars;
}

/** Characters / 4, rounded up, over all messages together. */
export function approximateTokens(messages: readonly Message[]): number {
  let chars = 0;
  for (const message of messages) chars += messageChars(message);
  return Math.ceil(chars / 4);
}
