/**
 * @module
 * The smallest request recovery could ever send, and what to tell the user when even that does not
 * fit: the problem is then not the history, so no history is compacted for it.
 */
import { windowRoomText } from '../budget/index.js';
import { renderedToolMessage } from '../compress/index.js';
import { newestRunResults, shortenedText } from '../cut/index.js';
import type { RequestMeasure } from '../manager/index.js';
import { describeSources, measureSchemaFloor } from '../schemas/index.js';
import { createEstimator } from '../tokens/index.js';
import { contentText, type Message, type ToolDefinition } from '../transcript/index.js';
import { fallbackMarker, newestUnitStart } from './truncate-transcript.js';

/**
 * The system prompt, a one-line placeholder and the newest pairing-safe unit, its tool results cut
 * down to the marker a shortened result carries (the chain can shorten them, as `fit` does): the
 * floor under every step of the recovery chain. `tokensOf` gives the marker its figure.
 */
export function smallestTranscript(
  messages: readonly Message[],
  tokensOf: (message: Message) => number = () => 0,
): Message[] {
  let systems = 0;
  while (systems < messages.length && messages[systems]?.role === 'system') systems++;
  const start = Math.max(systems, newestUnitStart(messages));
  const placeholder: Message = { role: 'user', content: `${fallbackMarker(99_999, 99_999)}\n\n[… omitted]` };
  const newest = messages.slice(start);
  const results = new Set(newestRunResults(newest));
  const least = newest.map((message, index) =>
    message.role === 'tool' && results.has(index)
      ? renderedToolMessage(
          message,
          shortenedText(contentText(message.content), 0, {
            recallId: 0,
            tokens: tokensOf(message),
            markers: { recall: false },
          }).trim(),
        )
      : message,
  );
  return [...messages.slice(0, systems), ...(start > systems ? [placeholder] : []), ...least];
}

/**
 * Says what to change when the smallest request does not fit: the reserve, the tool schemas, the
 * system prompt or the newest message, whichever is the cause.
 */
export function explainFloor({
  floor,
  measure,
  part,
  tools = [],
}: {
  floor: readonly Message[];
  measure: RequestMeasure;
  /** Estimated tokens of one message. */
  part: (message: Message) => number;
  /** The request's tools, to say which source's schemas take the room. */
  tools?: readonly ToolDefinition[];
}): string {
  const { estimate, budget, window, reserve, schemaTokens } = measure;
  const base = `even the smallest request Spillway can build (system prompt, tool schemas and the newest message) needs about ${estimate} prompt tokens, but ${windowRoomText({ window, reserve, budget })}`;
  if (budget <= 0) return `${base}; lower max_tokens or the reserve`;
  if (schemaTokens > budget / 2)
    return `${base}; tool schemas alone take about ${schemaTokens}${schemaSources(tools)}: send fewer tools or shorter schemas, or load them on demand (the history is not the problem, so it was left as it is)`;
  let largest: { message: Message; index: number; tokens: number } | undefined;
  floor.forEach((message, index) => {
    const tokens = part(message);
    if (!largest || tokens > largest.tokens) largest = { message, index, tokens };
  });
  if (largest?.message.role === 'system')
    return `${base}; the system prompt alone takes about ${largest.tokens}: shorten it`;
  if (largest !== undefined) {
    const what =
      largest.message.role === 'tool'
        ? 'the newest tool result'
        : largest.message.role === 'user'
          ? `the newest user message ("${contentText(largest.message.content).slice(0, 40).replace(/\s+/g, ' ')}…")`
          : 'the newest assistant message';
    return `${base}; ${what} alone takes about ${largest.tokens}: shorten it, or send it in parts (the history is not the problem, so it was left as it is)`;
  }
  return `${base}; use a model with a larger window`;
}

/** Which sources the tool schemas come from (` (tracker 141k (300 tools), builtin 2k (6 tools))`). */
function schemaSources(tools: readonly ToolDefinition[]): string {
  if (tools.length === 0) return '';
  const floor = measureSchemaFloor({ tools, counter: createEstimator() });
  return ` (${describeSources(floor.sources)})`;
}
