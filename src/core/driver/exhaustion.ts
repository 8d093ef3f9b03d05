/**
 * @module
 * A reply cut off by the window rather than finished: how it is recognized, and what the retry
 * changes (room made by compacting the history, a note to the model, or less reasoning).
 */
import { CLAMP_MARGIN } from '../budget/index.js';
import type { FitResult } from '../manager/index.js';
import type { Message, ToolCall } from '../transcript/index.js';
import type { TransportSuccess } from './transport.js';

/** A reply counts as cut off by the window when prompt + completion reach this share of it. */
export const EXHAUSTION_RATIO = 0.95;

/** From this share of the window taken by the prompt, an exhausted reply is retried after compacting. */
export const EXHAUSTION_COMPACT_RATIO = 0.25;

/**
 * Whether the reply stopped because the window ran out, rather than because it was done: the
 * provider said so, prompt + completion reached 95% of the window, or the clamp set `max_tokens` to
 * the room the prompt left (not the caller's own cap) and the reply ran into it.
 */
export function isExhausted(
  result: Pick<TransportSuccess<unknown>, 'finishReason' | 'usage'>,
  fit: Pick<FitResult, 'window' | 'estimate' | 'request'>,
  requested: number | undefined,
): boolean {
  if (result.finishReason === 'context_window') return true;
  if (result.finishReason !== 'length') return false;
  const usage = result.usage;
  if (usage === undefined) return false;
  const completion = usage.completionTokens ?? 0;
  if (usage.promptTokens + completion >= EXHAUSTION_RATIO * fit.window) return true;
  const maxTokens = fit.request.maxTokens;
  if (maxTokens === undefined) return false;
  const roomLimited =
    maxTokens >= fit.window - fit.estimate - CLAMP_MARGIN &&
    (requested === undefined || maxTokens < requested);
  return roomLimited && completion >= maxTokens;
}

/** Whether reasoning took at least half the completion (then less reasoning is the fix). */
export function reasoningFilled(
  result: Pick<TransportSuccess<unknown>, 'reasoningTokens' | 'usage'>,
): boolean {
  const completion = result.usage?.completionTokens;
  return (
    result.reasoningTokens !== undefined &&
    completion !== undefined &&
    result.reasoningTokens >= 0.5 * completion
  );
}

/** The note the retry after a compaction carries, naming what was cut off. */
export function exhaustionNote(toolCalls: readonly ToolCall[] | undefined): Message {
  const call = toolCalls?.at(-1);
  const what = call ? `the call to ${call.name}` : 'the answer';
  return {
    role: 'user',
    content: `Your previous reply was cut off because the context window ran out while you were writing ${what}. Split the work into smaller steps (for example, write a large file in several parts).`,
  };
}

/** The first tool call whose arguments are not JSON, if any. */
export function invalidToolCall(toolCalls: readonly ToolCall[] | undefined): ToolCall | undefined {
  return toolCalls?.find((call) => !isJson(call.arguments));
}

function isJson(text: string): boolean {
  if (text.trim() === '') return true;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
