import { renderToolCall } from './chat-template.js';
import type { ResolvedReply } from './script.js';
import type { Tokenizer } from './tokenizer.js';

/** How a generation ended, in OpenAI's words (`length` when it hit the token limit). */
export type FinishReason = 'stop' | 'tool_calls' | 'length';

/** A tool call the emulated model emitted; `arguments` is JSON text (possibly invalid, by fault). */
export interface GeneratedToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** One generated reply with the token counts it reports. */
export interface GeneratedReply {
  reasoning: string;
  text: string;
  toolCalls: GeneratedToolCall[];
  finish: FinishReason;
  /** Completion tokens: reasoning, text, tool-call envelopes as the template writes them, and the
   * end-of-turn token when the reply ended by itself. */
  completionTokens: number;
  reasoningTokens: number;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Tokens of one tool call as the model writes it (and as the next prompt will render it). */
export function toolCallTokens(call: { name: string; arguments: string }, tokenizer: Tokenizer): number {
  return tokenizer.count(renderToolCall({ name: call.name, arguments: parsed(call.arguments) }));
}

/**
 * Generates a scripted reply within `limit` completion tokens: reasoning first, then text, then tool
 * calls, each cut at the token where the limit falls (a cut tool call keeps its partial, invalid
 * arguments, as real servers return them), with `finish: 'length'` when the limit was reached.
 */
export function generateReply({
  reply,
  limit,
  tokenizer,
  callId,
}: {
  reply: ResolvedReply;
  limit: number;
  tokenizer: Tokenizer;
  callId: (index: number) => string;
}): GeneratedReply {
  let budget = Math.max(0, limit);
  const out: GeneratedReply = {
    reasoning: '',
    text: '',
    toolCalls: [],
    finish: 'length',
    completionTokens: 0,
    reasoningTokens: 0,
  };
  let used = 0;
  const take = (text: string): { text: string; cut: boolean; tokens: number } => {
    const tokens = tokenizer.encode(text);
    if (tokens.length <= budget) {
      budget -= tokens.length;
      used += tokens.length;
      return { text, cut: false, tokens: tokens.length };
    }
    const kept = tokenizer.decode(tokens.slice(0, budget));
    used += budget;
    const count = budget;
    budget = 0;
    return { text: kept, cut: true, tokens: count };
  };
  const reasoning = take(reply.reasoning);
  out.reasoning = reasoning.text;
  out.reasoningTokens = reasoning.tokens;
  if (!reasoning.cut) {
    const text = take(reply.text);
    out.text = text.text;
    if (!text.cut) {
      let cut = false;
      for (const [index, call] of reply.toolCalls.entries()) {
        const tokens = toolCallTokens(call, tokenizer);
        if (tokens <= budget) {
          budget -= tokens;
          used += tokens;
          out.toolCalls.push({ id: callId(index), ...call });
          continue;
        }
        const argumentTokens = tokenizer.encode(call.arguments);
        const keep = Math.max(0, budget - (tokens - argumentTokens.length));
        out.toolCalls.push({
          id: callId(index),
          name: call.name,
          arguments: tokenizer.decode(argumentTokens.slice(0, keep)),
        });
        used += budget;
        budget = 0;
        cut = true;
        break;
      }
      if (!cut && budget >= 1) {
        budget -= 1;
        used += 1;
        out.finish = out.toolCalls.length > 0 ? 'tool_calls' : 'stop';
      }
    }
  }
  out.completionTokens = used;
  return out;
}

/** Completion tokens of a reply as it stands (used after a fault rewrote it). */
export function measureReply(reply: GeneratedReply, tokenizer: Tokenizer): number {
  let total = tokenizer.count(reply.reasoning) + tokenizer.count(reply.text);
  for (const call of reply.toolCalls) total += toolCallTokens(call, tokenizer);
  return total + (reply.finish === 'length' ? 0 : 1);
}

/** Arguments cut to about 60% of their text, which leaves them unparseable. */
export function breakArguments(text: string): string {
  const kept = text.slice(0, Math.max(1, Math.floor(text.length * 0.6)));
  try {
    JSON.parse(kept);
    return `${kept}{`;
  } catch {
    return kept;
  }
}
