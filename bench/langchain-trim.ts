/**
 * LangChain's `trimMessages` as an agent loop would call it before each send, with the two token
 * counters its documentation offers: `count_tokens_approximately` (characters / 4 plus 3 tokens a
 * message, as LangChain defines it) and a real tokenizer (js-tiktoken's o200k, the tokenizer
 * LangChain.js itself loads), cached per message object as a sensible real-tokenizer counter would be.
 *
 * Options that give a valid request on an agent transcript: the system prompt and the task (the
 * only human message) are kept in front by the caller and the rest is trimmed with
 * `strategy: 'last', startOn: 'ai'`, so the kept tail starts at a tool call and never with an
 * orphaned tool result. (`startOn: 'human'`, the documented chat-history setting, returns no
 * history at all on a transcript whose only human message is the first.)
 */
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  trimMessages,
} from '@langchain/core/messages';
import { getEncoding } from 'js-tiktoken';
import { contentText, type Message } from '../src/core/index.js';

export type LangChainCounter = (messages: BaseMessage[]) => number;

/** LangChain messages made from Spillway's, with the way back to the originals. */
export class LangChainMirror {
  // trimMessages returns copies of the messages it keeps: they are traced back by their id.
  readonly #originals = new Map<string, Message>();

  /** A new LangChain message for `message` (a new object every call, as a loop that re-reads would make). */
  toLangChain(message: Message): BaseMessage {
    const id = `m${this.#originals.size}`;
    this.#originals.set(id, message);
    return convert(message, id);
  }

  /** The Spillway messages behind LangChain's. */
  originals(messages: readonly BaseMessage[]): Message[] {
    return messages.map((message) => {
      const original = message.id === undefined ? undefined : this.#originals.get(message.id);
      if (!original) throw new Error('a trimmed message has no original: the mirror was bypassed');
      return original;
    });
  }
}

function convert(message: Message, id: string): BaseMessage {
  const text = contentText(message.content);
  switch (message.role) {
    case 'system':
      return new SystemMessage({ content: text, id });
    case 'user':
      return new HumanMessage({ content: text, id });
    case 'assistant':
      return new AIMessage({
        id,
        content: text,
        tool_calls: (message.toolCalls ?? []).map((call) => ({
          id: call.id,
          name: call.name,
          args: JSON.parse(call.arguments) as Record<string, unknown>,
          type: 'tool_call' as const,
        })),
      });
    case 'tool':
      return new ToolMessage({ id, content: text, tool_call_id: message.toolCallId });
  }
}

function textOf(message: BaseMessage): string {
  const content = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
  const calls = (message as AIMessage).tool_calls;
  return calls && calls.length > 0 ? content + JSON.stringify(calls) : content;
}

/** LangChain's `count_tokens_approximately`: characters / 4 plus 3 per message. */
export const approximateCounter: LangChainCounter = (messages) => {
  let total = 0;
  for (const message of messages) total += Math.ceil(textOf(message).length / 4) + 3;
  return total;
};

/** A js-tiktoken o200k counter, cached per message object (trimMessages counts many sub-lists a send). */
export function createTiktokenCounter(): LangChainCounter {
  const encoding = getEncoding('o200k_base');
  const cache = new WeakMap<BaseMessage, number>();
  return (messages) => {
    let total = 0;
    for (const message of messages) {
      let count = cache.get(message);
      if (count === undefined) {
        count = encoding.encode(textOf(message)).length + 3;
        cache.set(message, count);
      }
      total += count;
    }
    return total;
  };
}

/**
 * The messages to send: the head (system prompt and task) as it is, then the newest messages that
 * fit `maxTokens` with it, starting at a tool call.
 */
export async function trimForSend({
  head,
  history,
  maxTokens,
  counter,
}: {
  head: BaseMessage[];
  history: BaseMessage[];
  maxTokens: number;
  counter: LangChainCounter;
}): Promise<BaseMessage[]> {
  const kept = await trimMessages(history, {
    maxTokens: maxTokens - counter(head),
    tokenCounter: counter,
    strategy: 'last',
    startOn: 'ai',
  });
  return [...head, ...kept];
}
