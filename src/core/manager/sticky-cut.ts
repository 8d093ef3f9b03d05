/**
 * @module
 * The sticky prune cut. Once `fit` has left the oldest turns out, later sends of the same run leave
 * out the same turns, behind the same marker, until the budget forces the cut further: requests keep
 * one byte prefix between cuts, so the provider's prefix cache and Spillway's anchor on the
 * provider's count both hold. A cut moves only forward, and only by enough to leave room
 * ({@link PRUNE_TARGET_RATIO}), so it moves seldom.
 */
import type { Message, Segmentation } from '../transcript/index.js';

/** When the cut has to move, it moves until the estimate is at most this share of the budget. */
export const PRUNE_TARGET_RATIO = 0.8;

/** Where the last prune cut a run's history. */
export interface StickyCut {
  /** Content key of the first message kept after the cut. */
  key: string;
  /** Messages and whole turns left out before it. */
  messages: number;
  turns: number;
  /** The marker that stands for them. */
  markerText: string;
}

/**
 * The history with the cut applied (the head, the marker, the turns from the cut on), or undefined
 * when the history no longer has the cut where it was (a compaction, another conversation).
 */
export function applyStickyCut({
  messages,
  segmentation,
  cut,
  keyOf,
  marker,
}: {
  messages: readonly Message[];
  segmentation: Segmentation;
  cut: StickyCut;
  keyOf: (message: Message) => string;
  marker: Message;
}): Message[] | undefined {
  const { head, turns } = segmentation;
  const first = turns[cut.turns];
  // The turn the cut keeps first must still be there, at the same place (the newest is never cut away).
  if (first === undefined || first.start - head.end !== cut.messages) return undefined;
  const message = messages[first.start];
  if (message === undefined || keyOf(message) !== cut.key) return undefined;
  return [...messages.slice(0, head.end), marker, ...messages.slice(first.start)];
}
