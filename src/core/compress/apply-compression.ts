/**
 * @module
 * Rendering a transcript with the levels a {@link CompressionState} stored: every compressed tool
 * result is replaced by its stored text, nothing else changes.
 */
import type { Message, ToolMessage } from '../transcript/index.js';
import type { CompressionState } from './compression-state.js';

/**
 * Rendered messages by original message, so a result renders to the same object on every fit (the
 * estimate cache and the provider-count anchor both key on identity). Optional: without it the
 * bytes are the same, only the objects are new.
 */
export type RenderMemo = WeakMap<Message, { text: string; message: Message }>;

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

/** One message as `state` renders it. */
export function renderMessage(message: Message, state: CompressionState, memo?: RenderMemo): Message {
  if (message.role !== 'tool') return message;
  const entry = state.entries[message.toolCallId];
  if (entry === undefined) return message;
  const cached = memo?.get(message);
  if (cached !== undefined && cached.text === entry.text) return cached.message;
  const rendered = renderedToolMessage(message, entry.text);
  memo?.set(message, { text: entry.text, message: rendered });
  return rendered;
}

/**
 * The transcript with every stored level applied. Returns `messages` itself when no message changes,
 * so a transcript without compressed results passes through untouched.
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
  let out: Message[] | undefined;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as Message;
    const rendered = renderMessage(message, state, memo);
    if (rendered === message && out === undefined) continue;
    out ??= messages.slice(0, index);
    out.push(rendered);
  }
  return out ?? messages;
}
