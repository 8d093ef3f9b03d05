/**
 * A transcript made invalid in one place: a tool result moved before the assistant message that
 * calls it, for tests of passes that must not assume a call comes before its result.
 */
import type { Message } from '../../src/core/index.js';

/** The list with one tool result moved before the assistant message that calls it. */
export function resultBeforeCall(messages: Message[], pick: number): Message[] {
  const results = messages.flatMap((message, index) => (message.role === 'tool' ? [index] : []));
  const at = results[pick % Math.max(1, results.length)];
  if (at === undefined) return messages;
  const result = messages[at] as Message;
  const call = messages.findIndex(
    (message) =>
      message.role === 'assistant' &&
      result.role === 'tool' &&
      message.toolCalls?.some((toolCall) => toolCall.id === result.toolCallId),
  );
  if (call === -1) return messages;
  const moved = messages.filter((_, index) => index !== at);
  moved.splice(call, 0, result);
  return moved;
}

/** The length of the first prefix of `messages` holding a tool result but not the call it answers. */
export function beforeItsCall(messages: readonly Message[]): number | undefined {
  const called = new Set<string>();
  for (const [index, message] of messages.entries()) {
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) called.add(call.id);
    if (message.role === 'tool' && !called.has(message.toolCallId)) return index + 1;
  }
  return undefined;
}

/**
 * System messages enough to put `transcript` past the length from which a list's walk is kept (and
 * what passes derive from it with it), so every list of a test that grows it is extended, not walked
 * afresh.
 */
export function withLongHead(transcript: Message[]): Message[] {
  const head: Message[] = Array.from({ length: 32 }, (_, index) => ({
    role: 'system',
    content: `rule ${index}`,
  }));
  return [...head, ...transcript];
}
