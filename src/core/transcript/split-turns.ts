import { requireMessages } from './require-input.js';
import { indexTranscript } from './transcript-index.js';
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
  if (!Array.isArray(messages)) requireMessages(messages, 'splitTurns');
  // The walk numbers the turns (-1 in the head), checking each message once; the ranges follow it.
  const { turnOf } = indexTranscript(messages, 'splitTurns');
  const first = turnOf.indexOf(0);
  const headEnd = first === -1 ? messages.length : first;
  const turns: MessageRange[] = [];
  for (let index = headEnd; index < messages.length; index++)
    if (index === headEnd || turnOf[index] !== turnOf[index - 1])
      turns.push({ start: index, end: index + 1 });
    else (turns.at(-1) as MessageRange).end = index + 1;
  return { head: { start: 0, end: headEnd }, turns };
}
