/**
 * @module
 * Rendering a transcript with the levels a {@link CompressionState} stored: every compressed tool
 * result is replaced by its stored text, nothing else changes. A stored entry applies only to the
 * result it was made from (same fingerprint of text and call), never to another result that reuses
 * its tool-call id.
 */
import type { Message, ToolCall, ToolMessage } from '../transcript/index.js';
import { derivedFrom } from '../transcript/transcript-index.js';
import { type CompressedResult, compressedResults, firstResultFrom } from './compressed-results.js';
import type { CompressionEntry, CompressionState } from './compression-state.js';
import { entrySource } from './content-hash.js';

/**
 * Per original message: its fingerprint and, once rendered, the rendered message, so a result
 * renders to the same object on every fit (the estimate cache and the provider-count anchor both key
 * on identity) and is fingerprinted once. Optional: without it the bytes are the same, only the
 * objects are new.
 */
export type RenderMemo = WeakMap<Message, { source: string; text?: string; message?: Message }>;

/** A tool result with `text` as its content; every other field as it was. */
export function renderedToolMessage(message: ToolMessage, text: string): ToolMessage {
  const rendered: ToolMessage = { ...message, content: text };
  if (message.wire?.noContent) {
    const { noContent: _, ...wire } = message.wire;
    if (Object.keys(wire).length > 0) rendered.wire = wire;
    else delete rendered.wire;
  }
  return rendered;
}

/** The fingerprint of a tool result with the call it answers, from the memo when it has it. */
export function sourceOf(
  message: ToolMessage,
  call: Pick<ToolCall, 'name' | 'arguments'> | undefined,
  memo?: RenderMemo,
): string {
  const known = memo?.get(message);
  if (known !== undefined) return known.source;
  const source = entrySource(message, call);
  memo?.set(message, { source });
  return source;
}

/** The stored entry for a tool result, when it was made from this very result and call. */
export function entryFor(
  state: CompressionState,
  message: ToolMessage,
  call: Pick<ToolCall, 'name' | 'arguments'> | undefined,
  memo?: RenderMemo,
): CompressionEntry | undefined {
  const entry = state.entries[message.toolCallId];
  if (entry === undefined || entry.source !== sourceOf(message, call, memo)) return undefined;
  return entry;
}

/** One message as `state` renders it; `call` is the tool call a tool result answers. */
export function renderMessage(
  message: Message,
  state: CompressionState,
  memo?: RenderMemo,
  call?: Pick<ToolCall, 'name' | 'arguments'>,
): Message {
  if (message.role !== 'tool') return message;
  const entry = entryFor(state, message, call, memo);
  if (entry === undefined) return message;
  const cached = memo?.get(message);
  if (cached?.message !== undefined && cached.text === entry.text) return cached.message;
  const rendered = renderedToolMessage(message, entry.text);
  memo?.set(message, { source: entry.source, text: entry.text, message: rendered });
  return rendered;
}

/** What {@link applyCompression} made of a list's first messages, for the same state and memo. */
interface Rendering {
  state: CompressionState;
  memo: RenderMemo;
  /** The rendered list so far, or undefined while no message changed. */
  out: Message[] | undefined;
}

/** The key a rendering is kept under with the list's walk. */
const RENDERING = Symbol('applyCompression');

/**
 * The transcript with every stored level applied. Returns `messages` itself when no message changes,
 * so a transcript without compressed results passes through untouched. With a memo, what was
 * rendered of a list's first messages for the same state is kept, and a list that grew is rendered
 * from where that stopped.
 *
 * @example
 * const rendered = applyCompression({ messages, state: manager.state.compression });
 */
export function applyCompression({
  messages,
  state,
  memo,
}: {
  messages: readonly Message[];
  state: CompressionState;
  memo?: RenderMemo;
}): readonly Message[] {
  if (memo === undefined) return renderFrom(messages, state, undefined, 0, undefined).out ?? messages;
  let made: Message[] | undefined;
  const rendering = derivedFrom<Rendering>(messages, 'applyCompression', RENDERING, (previous) => {
    const kept = previous?.value.state === state && previous.value.memo === memo ? previous : undefined;
    const rendered = renderFrom(messages, state, memo, kept?.length ?? 0, kept?.value.out);
    made = rendered.out;
    return rendered.complete ? { state, memo, out: rendered.out } : undefined;
  });
  if (rendering === undefined) return made ?? messages;
  // A copy: the kept list is extended by later sends, and the caller may change what it is given.
  return rendering.out === undefined ? messages : rendering.out.slice();
}

/**
 * Renders `messages` from `start` on, after `before` (the rendered first `start` messages, or
 * undefined when none of them changed). Not `complete` when a result with a stored level has no call
 * before it: a call declared later would change how it renders, so the rendering is not kept.
 */
function renderFrom(
  messages: readonly Message[],
  state: CompressionState,
  memo: RenderMemo | undefined,
  start: number,
  before: readonly Message[] | undefined,
): { out: Message[] | undefined; complete: boolean } {
  const { results, complete } = compressedResults(messages, state);
  let out: Message[] | undefined = before?.concat(messages.slice(start));
  for (let at = firstResultFrom(results, start); at < results.length; at++) {
    const { index, message, call } = results[at] as CompressedResult;
    const rendered = renderMessage(message, state, memo, call);
    if (rendered === message) continue;
    out ??= messages.slice();
    out[index] = rendered;
  }
  return { out, complete };
}
