/**
 * @module
 * The text a cut leaves where it took something out. Markers are byte-stable from send to send, so
 * the provider's prefix cache holds; they mention `recall` only where a recall tool is offered.
 */
import { formatCount } from '../compress/index.js';

/** Whether the surface offers the `recall` tool: markers then say how to get the original back. */
export interface MarkerOptions {
  recall: boolean;
}

/** The marker where whole turns were dropped. */
export function droppedTurnsMarker(
  { recallId, dropped, turns }: { recallId: number; dropped: number; turns: number },
  { recall }: MarkerOptions,
): string {
  const what = dropped === 1 ? '1 earlier message' : `${formatCount(dropped)} earlier messages`;
  const whole = turns === 1 ? '1 turn' : `${formatCount(turns)} turns`;
  const back = recall ? `; recall #${recallId} brings them back` : '';
  return `[pruned #${recallId}: ${what} (${whole}) left out to fit the window${back}]`;
}

/** The marker inside a shortened tool result, between its kept start and end. */
export function shortenedMarker(
  { recallId, lines, tokens }: { recallId: number; lines: number; tokens: number },
  { recall }: MarkerOptions,
): string {
  const what = lines === 1 ? '1 line' : `${formatCount(lines)} lines`;
  const back = recall ? `; recall #${recallId} brings it back` : '; ask for a narrower range to see it';
  return `[… ${what} (about ${formatCount(tokens)} tokens) of this output cut to fit the context window${back}]`;
}
