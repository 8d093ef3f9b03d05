/**
 * Per-send overhead on a growing transcript, turn by turn up to 2,000 messages (~200k tokens):
 * Spillway's incremental fit against LangChain's `trimMessages` (with LangChain's approximate
 * counter and with a real tokenizer, cached per message) and a `JSON.stringify(messages).length / 4`
 * check. Each is asked the same question before every send: does the transcript fit, and what do we
 * send? Each send comes after appending one turn of new message objects to a warm history.
 *
 * The approximate counter is LangChain's `count_tokens_approximately` as its documentation defines
 * it (characters / 4, plus 3 tokens a message); the real one counts with js-tiktoken's o200k, the
 * tokenizer LangChain.js itself loads. Peers are measured at checkpoints and their totals integrated;
 * Spillway's total is measured over every send.
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
import { type ChatRequest, ContextWindowManager, contentText, type Message } from '../src/core/index.js';
import { buildSession } from './bounded-send.js';
import { round, time } from './timing.js';

const BUDGET = 128_000;
const CHECKPOINTS = [100, 250, 500, 1_000, 1_500, 2_000];

function toLangChain(message: Message): BaseMessage {
  const text = contentText(message.content);
  switch (message.role) {
    case 'system':
      return new SystemMessage(text);
    case 'user':
      return new HumanMessage(text);
    case 'assistant':
      return new AIMessage({
        content: text,
        tool_calls: (message.toolCalls ?? []).map((call) => ({
          id: call.id,
          name: call.name,
          args: JSON.parse(call.arguments) as Record<string, unknown>,
          type: 'tool_call' as const,
        })),
      });
    case 'tool':
      return new ToolMessage({ content: text, tool_call_id: message.toolCallId });
  }
}

function textOf(message: BaseMessage): string {
  const content = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
  const calls = (message as AIMessage).tool_calls;
  return calls && calls.length > 0 ? content + JSON.stringify(calls) : content;
}

/** LangChain's `count_tokens_approximately`: characters / 4 plus 3 per message. */
function approximateCounter(messages: BaseMessage[]): number {
  let total = 0;
  for (const message of messages) total += Math.ceil(textOf(message).length / 4) + 3;
  return total;
}

const encoding = getEncoding('o200k_base');
// Counts are cached per message object, as any sensible real-tokenizer counter would: trimMessages
// calls the counter on many sub-lists per send.
const tiktokenCache = new WeakMap<BaseMessage, number>();
function tiktokenCounter(messages: BaseMessage[]): number {
  let total = 0;
  for (const message of messages) {
    let count = tiktokenCache.get(message);
    if (count === undefined) {
      count = encoding.encode(textOf(message)).length + 3;
      tiktokenCache.set(message, count);
    }
    total += count;
  }
  return total;
}

async function trimWith(
  counter: (messages: BaseMessage[]) => number,
  messages: BaseMessage[],
): Promise<BaseMessage[]> {
  return trimMessages(messages, {
    maxTokens: BUDGET,
    tokenCounter: counter,
    strategy: 'last',
    includeSystem: true,
    startOn: 'human',
  });
}

async function timeAsync(work: () => Promise<unknown>, runs: number): Promise<number> {
  const samples: number[] = [];
  for (let index = 0; index < runs; index++) {
    const start = performance.now();
    await work();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] as number;
}

export interface PerSendPoint {
  messages: number;
  spillway_ms: number;
  json_length_ms: number;
  langchain_approximate_ms: number;
  langchain_tiktoken_ms: number;
}

export async function benchPerSend(): Promise<Record<string, unknown>> {
  const session = buildSession(999);
  const tools: ChatRequest['tools'] = [
    {
      name: 'read_file',
      description: 'Read a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
    },
  ];
  const request = (messages: Message[]): ChatRequest => ({
    format: 'openai',
    model: 'gpt-4o',
    messages,
    tools,
    extra: {},
  });
  const langchain = session.map(toLangChain);

  // Spillway over every send of the growth: append one turn (two messages), fit.
  const manager = new ContextWindowManager({ contextLength: 1_000_000, model: 'gpt-4o' });
  const growing: Message[] = session.slice(0, 2);
  const started = performance.now();
  for (let index = 2; index < session.length; index += 2) {
    growing.push(session[index] as Message, session[index + 1] as Message);
    manager.fit(request(growing));
  }
  const spillwayTotalMs = performance.now() - started;

  const points: PerSendPoint[] = [];
  for (const count of CHECKPOINTS) {
    const prefix = session.slice(0, count - 2);
    const fresh = () => session.slice(count - 2, count).map((message) => ({ ...message }));
    const warm = new ContextWindowManager({ contextLength: 1_000_000, model: 'gpt-4o' });
    warm.fit(request(prefix));
    // One send after appending one turn: the two new messages are new objects every time.
    const spillway = time(() => warm.fit(request([...prefix, ...fresh()])), {
      warmup: 3,
      minRuns: 20,
      minMs: 200,
    });
    const slice = session.slice(0, count);
    const json = time(() => JSON.stringify(slice).length / 4 <= BUDGET, {
      warmup: 3,
      minRuns: 10,
      minMs: 200,
    });
    // LangChain sends, likewise after appending one turn of new message objects.
    const lcPrefix = langchain.slice(0, count - 2);
    const lcFresh = () => session.slice(count - 2, count).map(toLangChain);
    await trimWith(tiktokenCounter, lcPrefix);
    const approximate = await timeAsync(() => trimWith(approximateCounter, [...lcPrefix, ...lcFresh()]), 5);
    const tiktoken = await timeAsync(() => trimWith(tiktokenCounter, [...lcPrefix, ...lcFresh()]), 5);
    points.push({
      messages: count,
      spillway_ms: round(spillway.medianMs, 3),
      json_length_ms: round(json.medianMs, 3),
      langchain_approximate_ms: round(approximate, 3),
      langchain_tiktoken_ms: round(tiktoken, 2),
    });
  }

  const integrate = (key: keyof PerSendPoint): number => {
    // Sends happen every 2 messages; the per-send cost between checkpoints is interpolated linearly.
    let total = 0;
    let previous = { messages: 2, value: 0 };
    for (const point of points) {
      total += ((point.messages - previous.messages) / 2) * ((previous.value + (point[key] as number)) / 2);
      previous = { messages: point.messages, value: point[key] as number };
    }
    return round(total, 1);
  };
  const last = points.at(-1) as PerSendPoint;
  return {
    budget: BUDGET,
    sends: (session.length - 2) / 2,
    points,
    total_ms: {
      spillway_measured: round(spillwayTotalMs, 1),
      json_length: integrate('json_length_ms'),
      langchain_approximate: integrate('langchain_approximate_ms'),
      langchain_tiktoken: integrate('langchain_tiktoken_ms'),
    },
    at_2000_messages_ratio_over_spillway: {
      json_length: round(last.json_length_ms / last.spillway_ms, 1),
      langchain_approximate: round(last.langchain_approximate_ms / last.spillway_ms, 1),
      langchain_tiktoken: round(last.langchain_tiktoken_ms / last.spillway_ms, 1),
    },
  };
}
