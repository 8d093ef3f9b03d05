import { requireMessages } from './require-input.js';
import type { Message } from './types.js';

/** A half-open range of message indices, `[start, end)`. */
export interface MessageRange {
  start: number;
  end: number;
}

/** A transcript cut into its head and its turns. */
export interface Segmentation {
  /** The leading system run plus everything up to and including the first user message. */
  head: MessageRange;
  /** The turns after the head, oldest first. Each starts at an assistant message (or at the first
   * message after the head, when that is not an assistant message). */
  turns: MessageRange[];
}

/**
 * Cuts a transcript into the head and turns, the units that pruning keeps or drops whole.
 *
 * After the head, every assistant message opens a turn; tool results and later user messages join the
 * turn that is open. A transcript without a user message is all head and has no turns.
 *
 * @example
 * const { head, turns } = splitTurns(messages);
 * const newest = turns.at(-1); // never dropped
 */
export function splitTurns(messages: readonly Message[]): Segmentation {
  requireMessages(messages, 'splitTurns');
  const firstUser = messages.findIndex((message) => message.role === 'user');
  if (firstUser === -1) return { head: { start: 0, end: messages.length }, turns: [] };
  const headEnd = firstUser + 1;
  const turns: MessageRange[] = [];
  let start = headEnd;
  for (let index = headEnd + 1; index < messages.length; index++) {
    if (messages[index]?.role === 'assistant') {
      turns.push({ start, end: index });
      start = index;
    }
  }
  if (start < messages.length) turns.push({ start, end: messages.length });
  return { head: { start: 0, end: headEnd }, turns };
}
