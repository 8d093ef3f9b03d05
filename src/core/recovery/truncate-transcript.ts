/**
 * @module
 * The last three transcript cuts of the recovery chain: hard truncation (a marker and the newest
 * whole turns that fit), the newest turn with its tool results shortened, and the fallback to the
 * newest pairing-safe unit (a digest of everything before it).
 */
import { compactionUnits, fallbackDigest } from '../compact/index.js';
import { formatCount, renderedToolMessage } from '../compress/index.js';
import { type MarkerOptions, newestRunResults, shortenedText } from '../cut/index.js';
import {
  contentText,
  type Message,
  splitTurns,
  type ToolMessage,
  type UserMessage,
} from '../transcript/index.js';

/** What a cut produced. */
export interface TranscriptCut {
  messages: Message[];
  /** The marker message the cut put in. */
  marker: UserMessage;
  /** The messages it took out, in order. */
  removed: Message[];
}

function leadingSystems(messages: readonly Message[]): number {
  let count = 0;
  while (count < messages.length && messages[count]?.role === 'system') count++;
  return count;
}

/** The marker of a hard truncation. */
export function truncationMarker(recallId: number, removed: number): UserMessage {
  const what = removed === 1 ? '1 earlier message' : `${formatCount(removed)} earlier messages`;
  return {
    role: 'user',
    content: `[truncated #${recallId}: ${what} removed to fit the window; recall #${recallId} brings them back]`,
  };
}

/**
 * Hard truncation: the head (system prompt and first user message), a marker, and the newest whole
 * turns that `fits` accepts (at least one). `undefined` when not even the newest turn fits, or when
 * nothing would be cut.
 *
 * @example
 * truncateTranscript({ messages, recallId: 9, fits: (m) => manager.measure({ ...request, messages: m }).estimate <= budget });
 */
export function truncateTranscript({
  messages,
  recallId,
  fits,
}: {
  messages: readonly Message[];
  recallId: number;
  fits: (messages: Message[]) => boolean;
}): TranscriptCut | undefined {
  const { head, turns } = splitTurns(messages);
  if (turns.length === 0) return undefined;
  const build = (start: number) => {
    const marker = truncationMarker(recallId, start - head.end);
    return { marker, messages: [...messages.slice(0, head.end), marker, ...messages.slice(start)] };
  };
  let best: { start: number; marker: UserMessage; messages: Message[] } | undefined;
  for (let turn = turns.length - 1; turn >= 1; turn--) {
    const start = (turns[turn] as { start: number }).start;
    const candidate = build(start);
    if (!fits(candidate.messages)) break;
    best = { start, ...candidate };
  }
  if (best === undefined) return undefined;
  return { messages: best.messages, marker: best.marker, removed: messages.slice(head.end, best.start) };
}

/** A tool result the newest turn kept only the start and end of, and the whole one it stands for. */
export interface ShortenedResult {
  shortened: ToolMessage;
  original: ToolMessage;
  recallId: number;
}

/** What {@link shortenNewestTurn} produced: a hard truncation (when turns went) and shortened results. */
export interface ShortenedTurnCut {
  messages: Message[];
  /** The truncation marker and what it took out, when turns before the newest went. */
  truncation?: { marker: UserMessage; removed: Message[] };
  results: ShortenedResult[];
}

/** Steps of the search for the most of each result that fits. */
const KEEP_SEARCH_STEPS = 12;

/**
 * The head, a truncation marker for the turns before the newest (when there are any), and the newest
 * turn with the results of its newest tool run shortened to their start and end, each by the same
 * share, the most that `fits` accepts: what the fit does with a newest turn too large for the window.
 * The user's and the system's text are never cut. `undefined` when the newest turn has no tool
 * results, or even empty ones do not fit.
 *
 * @example
 * shortenNewestTurn({ messages, recallId: () => manager.nextRecallId(), fits, tokensOf, markers: { recall: true } });
 */
export function shortenNewestTurn({
  messages,
  recallId,
  fits,
  tokensOf,
  markers,
}: {
  messages: readonly Message[];
  /** Takes the next recall id (one for the marker, one for each shortened result). */
  recallId: () => number;
  fits: (messages: Message[]) => boolean;
  /** Tokens one message takes, for the markers' "about N tokens" cut. */
  tokensOf: (message: Message) => number;
  markers: MarkerOptions;
}): ShortenedTurnCut | undefined {
  const { head, turns } = splitTurns(messages);
  const newest = turns.at(-1);
  if (newest === undefined) return undefined;
  const turn = messages.slice(newest.start);
  const indices = newestRunResults(turn);
  if (indices.length === 0) return undefined;
  const removed = messages.slice(head.end, newest.start);
  const truncation =
    removed.length === 0 ? undefined : { marker: truncationMarker(recallId(), removed.length), removed };
  const before = [...messages.slice(0, head.end), ...(truncation ? [truncation.marker] : [])];
  const ids = indices.map(() => recallId());
  const tokens = indices.map((index) => tokensOf(turn[index] as Message));
  const assemble = (share: number) => {
    const out = turn.slice();
    const results: ShortenedResult[] = [];
    indices.forEach((index, at) => {
      const original = turn[index] as ToolMessage;
      const text = contentText(original.content);
      const keep = Math.floor(text.length * share);
      if (keep >= text.length) return;
      const id = ids[at] as number;
      const shortened = renderedToolMessage(
        original,
        shortenedText(text, keep, { recallId: id, tokens: tokens[at] as number, markers }),
      );
      out[index] = shortened;
      results.push({ shortened, original, recallId: id });
    });
    return { messages: [...before, ...out], results };
  };
  let best = assemble(0);
  if (!fits(best.messages)) return undefined;
  // The most of every result that fits: a bisection on the share kept.
  let low = 0;
  let high = 1;
  for (let step = 0; step < KEEP_SEARCH_STEPS; step++) {
    const share = (low + high) / 2;
    const candidate = assemble(share);
    if (fits(candidate.messages)) {
      low = share;
      best = candidate;
    } else high = share;
  }
  return { messages: best.messages, ...(truncation ? { truncation } : {}), results: best.results };
}

/** The start of the newest pairing-safe unit: the last message, with its assistant call if it is a tool result. */
export function newestUnitStart(messages: readonly Message[]): number {
  const units = compactionUnits(messages, leadingSystems(messages), messages.length);
  return units.at(-1)?.[0] ?? messages.length;
}

/** The marker of the fallback digest. */
export function fallbackMarker(recallId: number, removed: number): string {
  const what = removed === 1 ? '1 earlier message' : `${formatCount(removed)} earlier messages`;
  return `[compacted #${recallId}: ${what} condensed without a model (user messages kept, tool results left out); recall #${recallId} brings them back]`;
}

/**
 * The non-LLM fallback down to the newest pairing-safe unit: the system prompt, one user message with
 * a digest of everything else (user messages verbatim, assistant text cut short, one line per tool
 * call, shrunk until it fits) and the newest unit (the last message, or the last tool call with its
 * results). `undefined` when there is nothing before the newest unit.
 */
export function fallbackToNewest({
  messages,
  recallId,
  fits,
}: {
  messages: readonly Message[];
  recallId: number;
  fits: (messages: Message[]) => boolean;
}): TranscriptCut | undefined {
  const systems = leadingSystems(messages);
  const start = newestUnitStart(messages);
  if (start <= systems) return undefined;
  const span = messages.slice(systems, start);
  const prefix = fallbackMarker(recallId, span.length);
  const assemble = (digest: string) => {
    const marker: UserMessage = { role: 'user', content: `${prefix}\n\n${digest}` };
    return { marker, messages: [...messages.slice(0, systems), marker, ...messages.slice(start)] };
  };
  const digest = fallbackDigest({ messages: span, fits: (text) => fits(assemble(text).messages) });
  return { ...assemble(digest), removed: span };
}
