/**
 * @module
 * The last two transcript cuts of the recovery chain: hard truncation (a marker and the newest whole
 * turns that fit) and the fallback to the newest pairing-safe unit (a digest of everything before it).
 */
import { compactionUnits, fallbackDigest } from '../compact/index.js';
import { formatCount } from '../compress/index.js';
import { type Message, splitTurns, type UserMessage } from '../transcript/index.js';

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
