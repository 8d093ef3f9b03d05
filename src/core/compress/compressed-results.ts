/**
 * @module
 * The tool results of a transcript that a {@link CompressionState} holds an entry for, with the call
 * each answers: what rendering replaces and what the recall spans name. Found once per list and kept
 * with the list's walk, so a history that grew is searched from where the last search stopped.
 */
import type { Message, ToolCall, ToolMessage } from '../transcript/index.js';
import { derivedFrom } from '../transcript/transcript-index.js';
import type { CompressionEntry, CompressionState } from './compression-state.js';
import { indexToolCalls } from './tool-activity.js';

/** A tool result with an entry under its call id (made from it, or from another result of that id). */
export interface CompressedResult {
  /** Its position in the list. */
  index: number;
  message: ToolMessage;
  entry: CompressionEntry;
  /** The call it answers, when one is declared before it. */
  call: ToolCall | undefined;
}

/** What one search found, for one state. */
interface Found {
  state: CompressionState;
  results: readonly CompressedResult[];
}

/** The key the search is kept under with the list's walk. */
const FOUND = Symbol('compressedResults');

/**
 * Entries objects found to hold an entry: listing the keys of hundreds cost more than a send's other
 * passes together. Only a yes is kept (a no is cheap to find again), and a yes that no longer holds
 * only costs a search that finds nothing.
 */
const HAS_ENTRIES = new WeakSet<object>();

/** Whether `state` may have an entry. */
function hasEntries(state: CompressionState): boolean {
  if (HAS_ENTRIES.has(state.entries)) return true;
  for (const key in state.entries)
    if (Object.hasOwn(state.entries, key)) {
      HAS_ENTRIES.add(state.entries);
      return true;
    }
  return false;
}

/** What {@link compressedResults} found. */
export interface CompressedResults {
  results: readonly CompressedResult[];
  /**
   * False when a result's call is declared after it (or not at all): what comes next may declare
   * it, so nothing made of these results should be kept for a longer list.
   */
  complete: boolean;
}

const NONE: CompressedResults = { results: [], complete: true };

/**
 * The tool results of `messages` with an entry in `state`, in order. An incomplete search is not
 * kept: the next one starts over.
 *
 * @example
 * compressedResults(messages, manager.state.compression).results.map((result) => result.index);
 */
export function compressedResults(messages: readonly Message[], state: CompressionState): CompressedResults {
  if (!hasEntries(state)) return NONE;
  let made: CompressedResults = NONE;
  const kept = derivedFrom<Found>(messages, 'compressedResults', FOUND, (previous) => {
    const usable = previous?.value.state === state ? previous : undefined;
    const results = usable ? usable.value.results.slice() : [];
    // The tool calls are indexed only once a result with an entry is found: most sends have none.
    let calls: ReturnType<typeof indexToolCalls> | undefined;
    let complete = true;
    for (let index = usable?.length ?? 0; index < messages.length; index++) {
      const message = messages[index] as Message;
      if (message.role !== 'tool') continue;
      const entry = state.entries[message.toolCallId];
      if (entry === undefined) continue;
      calls ??= indexToolCalls(messages);
      const declaration = calls.get(message.toolCallId);
      if (declaration === undefined || declaration.index > index) complete = false;
      results.push({ index, message, entry, call: declaration?.call });
    }
    made = { results, complete };
    return complete ? { state, results } : undefined;
  });
  return kept ? { results: kept.results, complete: true } : made;
}

/** The position in `results` (sorted by index) of the first result at or after message `start`. */
export function firstResultFrom(results: readonly CompressedResult[], start: number): number {
  let low = 0;
  let high = results.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((results[middle] as CompressedResult).index < start) low = middle + 1;
    else high = middle;
  }
  return low;
}
