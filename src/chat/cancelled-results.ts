import type { Message, ToolMessage } from '../core/index.js';

/**
 * Results for the tool calls of the newest assistant message that have none (the turn was cancelled
 * while they ran): without them the next turn would leave an unanswered call behind, which no
 * provider accepts.
 */
export function cancelledResults(messages: readonly Message[]): ToolMessage[] {
  let index = messages.length - 1;
  while (index >= 0 && messages[index]?.role === 'tool') index--;
  const assistant = messages[index];
  if (assistant?.role !== 'assistant' || !assistant.toolCalls?.length) return [];
  const answered = new Set(
    messages.slice(index + 1).map((message) => (message.role === 'tool' ? message.toolCallId : '')),
  );
  return assistant.toolCalls
    .filter((call) => !answered.has(call.id))
    .map((call) => ({
      role: 'tool',
      toolCallId: call.id,
      content: 'Error: the user cancelled this turn before the tool finished.',
      isError: true,
    }));
}
