/**
 * @module
 * An oversized newest turn, shortened instead of refused: each tool result of the newest tool run
 * keeps its start and its end, in proportion to its size, around a marker that says how much was cut.
 * User and system text are never cut. The shortened text is stored like any compression level, so
 * the next requests send the same bytes.
 */
import {
  type CompressionEntry,
  type CompressionState,
  indexToolCalls,
  newestToolRun,
  type RenderMemo,
  renderedToolMessage,
  sourceOf,
} from '../compress/index.js';
import { contentText, type Message, type ToolMessage } from '../transcript/index.js';
import { keepEnds } from './head-and-tail.js';
import { type MarkerOptions, shortenedMarker } from './markers.js';

/** Share of the room a result's kept text aims for: the marker and uneven density take the rest. */
const KEEP_SHARE = 0.85;
/** Attempts at a smaller keep when the first one comes out over the room. */
const MAX_ATTEMPTS = 6;

/** Inputs of {@link shortenNewest}. */
export interface ShortenNewestOptions {
  /** The request's messages (the smallest form of it: head, marker, newest turn). */
  messages: readonly Message[];
  state: CompressionState;
  /** Calibrated tokens the messages may take (the budget minus tool schemas and overhead). */
  room: number;
  /** Raw estimate of one message; `factor` turns it into calibrated tokens. */
  estimateOf: (message: Message) => number;
  factor: number;
  markers: MarkerOptions;
  memo?: RenderMemo;
}

/** What {@link shortenNewest} did: `undefined` when the non-tool parts alone are over the room. */
export interface ShortenNewestResult {
  messages: Message[];
  state: CompressionState;
  /** Tool-call ids shortened. */
  shortened: string[];
}

/** Where the results of the newest tool run are among `messages` (the last assistant call's results). */
export function newestRunResults(messages: readonly Message[]): number[] {
  const newest = newestToolRun(messages);
  return messages.flatMap((message, index) =>
    message.role === 'tool' && newest.has(message.toolCallId) ? [index] : [],
  );
}

/**
 * A result's text kept to about `keep` characters, its start and end around the shortened-output
 * marker; `tokens` is what the whole result counts, and the marker says the share of it cut.
 */
export function shortenedText(
  text: string,
  keep: number,
  { recallId, tokens, markers }: { recallId: number; tokens: number; markers: MarkerOptions },
): string {
  return keepEnds(text, keep, ({ lines }) =>
    shortenedMarker(
      { recallId, lines, tokens: Math.max(0, Math.round(tokens * (1 - keep / text.length))) },
      markers,
    ),
  );
}

/**
 * Shortens the newest run's tool results so the messages fit `room`; `undefined` when even empty
 * results would not (the user's or system text is what is too large).
 *
 * @example
 * const result = shortenNewest({ messages: floor, state, room: budget - fixed, estimateOf, factor, markers: { recall: false } });
 */
export function shortenNewest(options: ShortenNewestOptions): ShortenNewestResult | undefined {
  const { messages, state, room, estimateOf, factor, markers, memo } = options;
  const indices = newestRunResults(messages);
  if (indices.length === 0) return undefined;
  const size = (list: readonly Message[]) =>
    Math.ceil(list.reduce((sum, message) => sum + estimateOf(message), 0) * factor);
  const emptied = messages.map((message, index) =>
    indices.includes(index) ? renderedToolMessage(message as ToolMessage, '') : message,
  );
  const fixed = size(emptied);
  if (fixed >= room) return undefined;
  const calls = indexToolCalls(messages);
  const results = indices.map((index) => {
    const message = messages[index] as ToolMessage;
    return {
      index,
      message,
      text: contentText(message.content),
      tokens: Math.ceil(estimateOf(message) * factor),
    };
  });
  const total = results.reduce((sum, result) => sum + result.tokens, 0);
  let share = ((room - fixed) / Math.max(1, total)) * KEEP_SHARE;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++, share *= 0.8) {
    let nextRecallId = state.nextRecallId;
    const entries: Record<string, CompressionEntry> = { ...state.entries };
    const out = messages.slice();
    for (const { index, message, text, tokens } of results) {
      const keep = Math.floor(text.length * Math.min(1, share));
      if (keep >= text.length) continue;
      const recallId = nextRecallId++;
      const shortened = shortenedText(text, keep, { recallId, tokens, markers });
      const source = sourceOf(message, calls.get(message.toolCallId)?.call, memo);
      entries[message.toolCallId] = { level: 'truncated', text: shortened, recallId, source };
      out[index] = renderedToolMessage(message, shortened);
    }
    if (size(out) <= room)
      return {
        messages: out,
        state: { ...state, entries, nextRecallId },
        shortened: results
          .filter(({ index }) => out[index] !== messages[index])
          .map(({ message }) => message.toolCallId),
      };
  }
  return undefined;
}
