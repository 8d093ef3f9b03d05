import { requireMessages } from './require-input.js';
import { derivedFrom } from './transcript-index.js';
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
  const kept = keptSegmentation(messages, 'splitTurns');
  // The caller's own list of turns (the kept one is extended by later sends); the ranges are frozen.
  return { head: kept.head, turns: kept.turns.slice() };
}

/**
 * The head of `messages` as {@link splitTurns} cuts it, without a list of the turns.
 *
 * @example
 * const { end } = headRange(messages); // messages.slice(0, end) is the head
 */
export function headRange(messages: readonly Message[]): MessageRange {
  return keptSegmentation(messages, 'headRange').head;
}

/**
 * The segmentation kept with the walk of `messages`: the walk numbers the turns (-1 in the head),
 * checking each message once, and the ranges follow it, extended over what a later send appended.
 */
function keptSegmentation(messages: readonly Message[], call: string): Segmentation {
  if (!Array.isArray(messages)) requireMessages(messages, call);
  return derivedFrom<Segmentation>(messages, call, SEGMENTATION, (previous, { turnOf }) =>
    previous === undefined || previous.value.head.end === previous.length
      ? segmentation(turnOf, messages.length)
      : extended(previous.value, turnOf, previous.length, messages.length),
  ) as Segmentation;
}

/** The key segmentations are kept under with a list's walk. */
const SEGMENTATION = Symbol('splitTurns');

/** A range that stays as it is: the ranges of a kept segmentation are handed to every caller that asks. */
function range(start: number, end: number): MessageRange {
  return Object.freeze({ start, end });
}

/** The head and turns of the first `length` messages, from their turn numbers. */
function segmentation(turnOf: readonly number[], length: number): Segmentation {
  const first = turnOf.indexOf(0);
  const headEnd = first === -1 || first >= length ? length : first;
  return extended({ head: range(0, headEnd), turns: [] }, turnOf, headEnd, length);
}

/**
 * `earlier` (the segmentation of the first `from` messages, its head ended before them) extended to
 * `length` messages: the newest turn's range replaced when it grew, new turns added. Neither
 * `earlier` nor its ranges change.
 */
function extended(
  earlier: Segmentation,
  turnOf: readonly number[],
  from: number,
  length: number,
): Segmentation {
  const turns = earlier.turns.slice();
  const headEnd = earlier.head.end;
  for (let index = from; index < length; index++) {
    const last = turns.at(-1);
    if (index === headEnd || last === undefined || turnOf[index] !== turnOf[index - 1])
      turns.push(range(index, index + 1));
    else turns[turns.length - 1] = range(last.start, index + 1);
  }
  return { head: earlier.head, turns };
}
