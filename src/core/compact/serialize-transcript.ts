/**
 * @module
 * A transcript as labelled text: what a summary request shows the model (so it reads a record, not a
 * conversation to continue) and what `recall` returns.
 */
import { describeToolCall } from '../compress/index.js';
import { keepEnds } from '../cut/index.js';
import type { Content, Message } from '../transcript/index.js';

/** How much of each message a serialization keeps, in characters (`Infinity`: all of it). */
export interface SerializeLimits {
  user: number;
  assistant: number;
  /** Tool results; 0 writes only the one-line note that the tool ran. */
  tool: number;
  /** Tool-call arguments. */
  arguments: number;
}

/** Everything, for `recall`. */
export const FULL_TEXT: SerializeLimits = {
  user: Number.POSITIVE_INFINITY,
  assistant: Number.POSITIVE_INFINITY,
  tool: Number.POSITIVE_INFINITY,
  arguments: Number.POSITIVE_INFINITY,
};

/**
 * The limits of summary inputs, loosest first: a summary request that still needs more than eight
 * chunks is serialized again at the next level.
 */
export const SUMMARY_INPUT_LEVELS: readonly SerializeLimits[] = [
  { user: 20_000, assistant: 6_000, tool: 3_000, arguments: 600 },
  { user: 4_000, assistant: 1_000, tool: 300, arguments: 200 },
  { user: 1_000, assistant: 200, tool: 0, arguments: 80 },
];

/** Text and reasoning parts as text; images and other blocks as a short note. */
function visibleText(content: Content): string {
  if (typeof content === 'string') return content;
  const parts: string[] = [];
  for (const part of content) {
    if (part.type === 'text') parts.push(part.text);
    else if (part.type === 'image') parts.push('[image]');
    else if (part.type === 'opaque') parts.push('[attachment]');
  }
  return parts.join('\n');
}

/** Keeps the start and the end of a text, with a note of what was cut in between. */
export function cutMiddle(text: string, limit: number): string {
  if (text.length <= limit) return text;
  if (limit <= 0) return '';
  return keepEnds(text, limit, ({ chars }) => `[… ${chars} characters cut …]`, {
    headShare: 0.7,
    atLines: false,
  });
}

/**
 * One message as labelled text. `calls` names the call each tool result answers, for its label.
 *
 * @example
 * serializeMessage({ role: 'user', content: 'Fix it' }, { limits: FULL_TEXT }); // "[user]\nFix it"
 */
export function serializeMessage(
  message: Message,
  {
    limits,
    calls = new Map(),
  }: { limits: SerializeLimits; calls?: ReadonlyMap<string, { name: string; arguments: string }> },
): string {
  switch (message.role) {
    case 'system':
      return `[system]\n${visibleText(message.content)}`;
    case 'user':
      return `[user]\n${cutMiddle(visibleText(message.content), limits.user)}`;
    case 'assistant': {
      const lines: string[] = [];
      const text = cutMiddle(visibleText(message.content).trim(), limits.assistant);
      if (text !== '') lines.push(`[assistant]\n${text}`);
      for (const call of message.toolCalls ?? [])
        lines.push(`[assistant called ${call.name} ${cutMiddle(call.arguments, limits.arguments)}]`);
      return lines.length === 0 ? '[assistant]' : lines.join('\n');
    }
    case 'tool': {
      const call = calls.get(message.toolCallId);
      const what = call ? describeToolCall(call) : `tool ${message.toolCallId}`;
      const status = message.isError ? ' (failed)' : '';
      if (limits.tool <= 0) return `[tool ${what} ran${status}, result elided]`;
      return `[result of ${what}${status}]\n${cutMiddle(visibleText(message.content), limits.tool)}`;
    }
  }
}

/** Messages as labelled text, one block per message. */
export function serializeTranscript(
  messages: readonly Message[],
  { limits = FULL_TEXT }: { limits?: SerializeLimits } = {},
): string {
  const calls = new Map<string, { name: string; arguments: string }>();
  for (const message of messages)
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) calls.set(call.id, call);
  return messages.map((message) => serializeMessage(message, { limits, calls })).join('\n\n');
}
