import { requireMessages } from './require-input.js';
import type { Message } from './types.js';

/** A half-open range of message indices, `[start, end)`. */
export interface MessageRange {
  start: number;
  end: number;
}

/** A transcript cut into its head and its turns. */
export interface Segmentation {
  /** The leading system run, the first user message and every message after it before the first assistant message. */
  head: MessageRange;
  /** The turns after the head, oldest first. Each starts at an assistant message (or at the first
   * message after the head, when that is not an assistant message). */
  turns: MessageRange[];
}

/**
 * Cuts a transcript into the head and turns, the units that pruning keeps or drops whole.
 *
 * The head is everything before the first assistant message (system messages, and the user's opening
 * messages, however many). After it, every assistant message opens a turn; tool results and later user
 * messages join the turn that is open. A transcript without a user message is all head and has no turns.
 *
 * @example
 * const { head, turns } = splitTurns(messages);
 * const newest = turns.at(-1); // never dropped
 */
export function splitTurns(messages: readonly Message[]): Segmentation {
  requireMessages(messages, 'splitTurns');
  const firstUser = messages.findIndex((message) => message.role === 'user');
  if (firstUser === -1) return { head: { start: 0, end: messages.length }, turns: [] };
  // The head runs to the first assistant message: a client may open with several user messages (Codex
  // sends its environment context, then the user's instructions, then the task), and all of them are
  // the task the turns work on, never a turn to drop.
  let headEnd = firstUser + 1;
  while (headEnd < messages.length && messages[headEnd]?.role !== 'assistant') headEnd++;
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
