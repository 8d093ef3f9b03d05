import type { Content, Message, ToolDefinition } from '../transcript/index.js';
import {
  IMAGE_TOKENS,
  MESSAGE_OVERHEAD,
  TOOL_BLOCK_OVERHEAD,
  TOOL_CALL_OVERHEAD,
  TOOL_DEFINITION_OVERHEAD,
  TOOL_RESULT_OVERHEAD,
} from './overheads.js';
import type { TokenCounter } from './token-counter.js';

/**
 * The estimate of one message or tool block, by where the tokens come from: `prose` is text written
 * for people (system, user and assistant text, reasoning), `dense` is machine text (tool arguments,
 * tool results, ids, schemas, unknown fields), `overhead` is the chat template around it.
 */
export interface TokenBreakdown {
  prose: number;
  dense: number;
  overhead: number;
  total: number;
}

/** A breakdown of nothing. */
export function emptyBreakdown(): TokenBreakdown {
  return { prose: 0, dense: 0, overhead: 0, total: 0 };
}

/** Adds `b` into `a` and returns `a`. */
export function addBreakdown(a: TokenBreakdown, b: TokenBreakdown): TokenBreakdown {
  a.prose += b.prose;
  a.dense += b.dense;
  a.overhead += b.overhead;
  a.total += b.total;
  return a;
}

function contentTokens(
  content: Content,
  counter: TokenCounter,
  into: TokenBreakdown,
  kind: 'prose' | 'dense',
): void {
  if (typeof content === 'string') {
    into[kind] += counter.count(content);
    return;
  }
  for (const part of content) {
    if (part.type === 'text' || part.type === 'reasoning') {
      into[kind] += counter.count(part.text);
      if (part.extra) into.dense += counter.count(JSON.stringify(part.extra));
    } else if (part.type === 'image') {
      into.dense += IMAGE_TOKENS;
    } else {
      into.dense += counter.count(JSON.stringify(part.value) ?? '');
    }
  }
}

/** Estimates one message with `counter`, uncached. */
export function estimateMessage(message: Message, counter: TokenCounter): TokenBreakdown {
  const result = emptyBreakdown();
  result.overhead += message.role === 'tool' ? TOOL_RESULT_OVERHEAD : MESSAGE_OVERHEAD;
  if (message.role === 'tool') {
    contentTokens(message.content, counter, result, 'dense');
    result.dense += counter.count(message.toolCallId);
  } else {
    contentTokens(message.content, counter, result, 'prose');
  }
  if (message.role === 'assistant') {
    for (const call of message.toolCalls ?? []) {
      result.overhead += TOOL_CALL_OVERHEAD;
      result.dense += counter.count(call.id) + counter.count(call.name) + counter.count(call.arguments);
      if (call.extra) result.dense += counter.count(JSON.stringify(call.extra));
    }
  }
  if (message.extra) result.dense += counter.count(JSON.stringify(message.extra));
  result.total = result.prose + result.dense + result.overhead;
  return result;
}

/** Estimates the tool definitions a request carries (they travel with every request). */
export function estimateTools(tools: readonly ToolDefinition[], counter: TokenCounter): TokenBreakdown {
  const result = emptyBreakdown();
  if (tools.length > 0) result.overhead += TOOL_BLOCK_OVERHEAD;
  for (const tool of tools) {
    result.overhead += TOOL_DEFINITION_OVERHEAD;
    result.dense += counter.count(
      JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.parameters }),
    );
  }
  result.total = result.dense + result.overhead;
  return result;
}

/** A breakdown as calibration reads it: text (prose and machine text), and template overhead. */
export function calibrationInputOf(breakdown: TokenBreakdown): { text: number; overhead: number } {
  return { text: breakdown.prose + breakdown.dense, overhead: breakdown.overhead };
}
