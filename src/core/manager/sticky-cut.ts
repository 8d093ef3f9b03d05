/**
 * @module
 * The sticky prune cut. Once `fit` has left the oldest turns out, later sends of the same run leave
 * out the same turns, behind the same marker, until the budget forces the cut further: requests keep
 * one byte prefix between cuts, so the provider's prefix cache and Spillway's anchor on the
 * provider's count both hold. A cut moves only forward, and deep enough to leave room for several
 * turns (`cutTarget`), so it moves seldom.
 */
import { digestItems, type Message, type Segmentation } from '../transcript/index.js';

/** Where the last prune cut a run's history: plain data, kept with the manager's state. */
export interface StickyCut {
  /** Digest of the first message kept after the cut (`digestItems`). */
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
  marker,
}: {
  messages: readonly Message[];
  segmentation: Segmentation;
  cut: StickyCut;
  marker: Message;
}): Message[] | undefined {
  const { head, turns } = segmentation;
  const first = turns[cut.turns];
  // The turn the cut keeps first must still be there, at the same place (the newest is never cut away).
  if (first === undefined || first.start - head.end !== cut.messages) return undefined;
  const message = messages[first.start];
  if (message === undefined || digestItems([message]) !== cut.key) return undefined;
  return messages.slice(0, head.end).concat([marker], messages.slice(first.start));
}

/** The cut that keeps `request` from index `end` on, or undefined without a marker to stand for the rest. */
export function stickyCutOf({
  request,
  end,
  messages,
  turns,
  markerText,
}: {
  request: readonly Message[];
  end: number;
  messages: number;
  turns: number;
  markerText: string | undefined;
}): StickyCut | undefined {
  const firstKept = request[end];
  if (firstKept === undefined || markerText === undefined) return undefined;
  return { key: digestItems([firstKept]), messages, turns, markerText };
}

/** A stored cut read back, checked; anything malformed is no cut. */
export function parseStickyCut(value: unknown): StickyCut | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const cut = value as Partial<StickyCut>;
  return typeof cut.key === 'string' &&
    Number.isInteger(cut.messages) &&
    Number.isInteger(cut.turns) &&
    typeof cut.markerText === 'string'
    ? (cut as StickyCut)
    : undefined;
}
