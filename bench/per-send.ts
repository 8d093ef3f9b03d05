/**
 * Per-send cost and result on a growing agent transcript (one tool turn appended before every send,
 * up to 2,000 messages, ~240k real tokens), every method fitting the same window with the same reply
 * reserve:
 *
 * - Spillway with its estimator, the provider's prompt count fed back after each send (`observe`), as
 *   every Spillway surface does;
 * - Spillway with an exact counter (`createGptTokenizerCounter('o200k_base')`) and no feedback;
 * - LangChain `trimMessages` with its approximate counter and with a real tokenizer (bench/langchain-trim.ts).
 *
 * Each method's request is checked in the benchmark: tool-call pairing valid, and its real prompt
 * count (the emulators' chat template counted with gpt-tokenizer's o200k) within the window minus
 * the reserve. Times are process CPU time. Spillway is timed on every send of the growth (fit +
 * observe), and its cost at a checkpoint is the median of the 20 sends before it; LangChain keeps no
 * state between sends, so it is timed at the checkpoints (median of 5 calls after appending one turn
 * of new message objects) and its total over the growth interpolated between them.
 */
import type { BaseMessage } from '@langchain/core/messages';
import {
  type ChatRequest,
  ContextWindowManager,
  type ContextWindowManagerOptions,
  type Message,
  toOpenAIChat,
  validatePairing,
} from '../src/core/index.js';
import { countPromptTokens } from '../src/emulator/index.js';
import { createGptTokenizerCounter } from '../src/tokenizers/index.js';
import { buildSession } from './bounded-send.js';
import {
  approximateCounter,
  createTiktokenCounter,
  type LangChainCounter,
  LangChainMirror,
  trimForSend,
} from './langchain-trim.js';
import { round } from './timing.js';

export const PER_SEND_WINDOWS = [128_000, 32_000] as const;
export const PER_SEND_RESERVE = 4_096;
const CHECKPOINTS = [100, 250, 500, 1_000, 1_500, 2_000];
/** Spillway sends whose median is the per-send cost at a checkpoint. */
const NEIGHBOURS = 20;

const TOOLS: ChatRequest['tools'] = [
  {
    name: 'read_file',
    description: 'Read a file',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  },
];

export const PER_SEND_METHODS = {
  spillway: 'Spillway, estimator + provider count',
  spillway_exact: 'Spillway, exact o200k counter',
  langchain_approximate: 'LangChain trimMessages, approximate counter',
  langchain_tiktoken: 'LangChain trimMessages, js-tiktoken counter',
} as const;
export type PerSendMethod = keyof typeof PER_SEND_METHODS;

/** What one method sent at one checkpoint, and what it cost. */
export interface PerSendPoint {
  messages: number;
  /** CPU milliseconds for this send. */
  ms: number;
  /** The request's prompt tokens on the real count. */
  real_tokens: number;
  kept_messages: number;
  pairing_valid: boolean;
  /** Real count within the window minus the reserve. */
  fits: boolean;
  /** The task (the first user message) is still in the request. */
  keeps_task: boolean;
}

export interface PerSendMethodResult {
  method: PerSendMethod;
  label: string;
  points: PerSendPoint[];
  /** CPU milliseconds over all sends: measured (Spillway) or interpolated between checkpoints. */
  total_ms: number;
  total: 'measured' | 'interpolated';
  /** Sends at which the method made a new cut (Spillway only). */
  cuts?: number;
}

export interface PerSendWindow {
  window: number;
  /** The prompt budget every method must meet on the real count: window minus reserve. */
  budget: number;
  methods: PerSendMethodResult[];
}

const request = (messages: Message[]): ChatRequest => ({
  format: 'openai',
  model: 'gpt-4o',
  messages,
  tools: TOOLS,
  extra: {},
});

function realTokens(messages: Message[]): number {
  return countPromptTokens(toOpenAIChat(request(messages)), { format: 'openai' }).tokens;
}

function check(messages: Message[], task: Message, budget: number, ms: number): PerSendPoint {
  const tokens = realTokens(messages);
  return {
    messages: 0,
    ms: round(ms, 3),
    real_tokens: tokens,
    kept_messages: messages.length,
    pairing_valid: validatePairing(messages).ok,
    fits: tokens <= budget,
    keeps_task: messages.includes(task),
  };
}

function cpuMs(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1_000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Fits every send of the growth with one manager; the cost at a checkpoint is the median of the sends before it. */
function runSpillway(
  session: Message[],
  window: number,
  method: 'spillway' | 'spillway_exact',
): PerSendMethodResult {
  const budget = window - PER_SEND_RESERVE;
  const options: ContextWindowManagerOptions = {
    contextLength: window,
    reserve: PER_SEND_RESERVE,
    model: 'gpt-4o',
  };
  if (method === 'spillway_exact') options.exact = createGptTokenizerCounter('o200k_base');
  const manager = new ContextWindowManager(options);
  const growing = session.slice(0, 2);
  const costs: number[] = [];
  const points: PerSendPoint[] = [];
  let total = 0;
  let cuts = 0;
  for (let index = 2; index < session.length; index += 2) {
    growing.push(session[index] as Message, session[index + 1] as Message);
    let start = process.cpuUsage();
    const fitted = manager.fit(request(growing));
    let ms = cpuMs(start);
    if (fitted.cut.kind !== 'none' && fitted.cut.kind !== 'sticky') cuts++;
    const reported = method === 'spillway' ? realTokens(fitted.request.messages) : 0;
    if (method === 'spillway') {
      start = process.cpuUsage();
      manager.observe({ promptTokens: reported });
      ms += cpuMs(start);
    }
    costs.push(ms);
    total += ms;
    if (CHECKPOINTS.includes(growing.length)) {
      const point = check(
        fitted.request.messages,
        session[1] as Message,
        budget,
        median(costs.slice(-NEIGHBOURS)),
      );
      points.push({ ...point, messages: growing.length });
    }
  }
  return {
    method,
    label: PER_SEND_METHODS[method],
    points,
    total_ms: round(total, 1),
    total: 'measured',
    cuts,
  };
}

/** Times `trimForSend` at each checkpoint, after appending one turn of new message objects. */
async function runLangChain(
  session: Message[],
  window: number,
  method: 'langchain_approximate' | 'langchain_tiktoken',
): Promise<PerSendMethodResult> {
  const budget = window - PER_SEND_RESERVE;
  const counter: LangChainCounter =
    method === 'langchain_tiktoken' ? createTiktokenCounter() : approximateCounter;
  const mirror = new LangChainMirror();
  const head = session.slice(0, 2).map((message) => mirror.toLangChain(message));
  const history: BaseMessage[] = [];
  const points: PerSendPoint[] = [];
  for (const count of CHECKPOINTS) {
    while (history.length < count - 4)
      history.push(mirror.toLangChain(session[history.length + 2] as Message));
    // The loop counted every earlier message on earlier sends: warm the counter's cache on them.
    await trimForSend({ head, history, maxTokens: budget, counter });
    const samples: number[] = [];
    let kept: BaseMessage[] = [];
    for (let run = 0; run < 5; run++) {
      const fresh = session.slice(count - 2, count).map((message) => mirror.toLangChain(message));
      const start = process.cpuUsage();
      kept = await trimForSend({ head, history: [...history, ...fresh], maxTokens: budget, counter });
      samples.push(cpuMs(start));
    }
    const point = check(mirror.originals(kept), session[1] as Message, budget, median(samples));
    points.push({ ...point, messages: count });
  }
  return {
    method,
    label: PER_SEND_METHODS[method],
    points,
    total_ms: round(interpolate(points), 1),
    total: 'interpolated',
  };
}

/** Sends happen every 2 messages; the cost between checkpoints is interpolated linearly. */
function interpolate(points: readonly PerSendPoint[]): number {
  let total = 0;
  let previous = { messages: 2, ms: 0 };
  for (const point of points) {
    total += ((point.messages - previous.messages) / 2) * ((previous.ms + point.ms) / 2);
    previous = point;
  }
  return total;
}

/** Least squares of per-send ms against messages in the history: what a send costs per message held. */
export function perMessageCost(points: readonly PerSendPoint[]): {
  per_message_us: number;
  intercept_ms: number;
} {
  const n = points.length;
  const meanX = points.reduce((sum, point) => sum + point.messages, 0) / n;
  const meanY = points.reduce((sum, point) => sum + point.ms, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const point of points) {
    covariance += (point.messages - meanX) * (point.ms - meanY);
    variance += (point.messages - meanX) ** 2;
  }
  const slope = variance === 0 ? 0 : covariance / variance;
  return { per_message_us: round(slope * 1_000, 3), intercept_ms: round(meanY - slope * meanX, 3) };
}

export async function benchPerSend(): Promise<Record<string, unknown>> {
  const session = buildSession(999);
  const windows: PerSendWindow[] = [];
  for (const window of PER_SEND_WINDOWS) {
    const methods: PerSendMethodResult[] = [
      runSpillway(session, window, 'spillway'),
      runSpillway(session, window, 'spillway_exact'),
      await runLangChain(session, window, 'langchain_approximate'),
      await runLangChain(session, window, 'langchain_tiktoken'),
    ];
    windows.push({ window, budget: window - PER_SEND_RESERVE, methods });
  }
  const spillway = windows.map((entry) => ({
    window: entry.window,
    ...perMessageCost(entry.methods[0]?.points ?? []),
  }));
  return {
    command: 'npm run bench -- per-send',
    clock: 'process CPU time',
    transcript: {
      messages: session.length,
      sends: (session.length - 2) / 2,
      real_tokens: realTokens(session),
      tokenizer: "o200k through the emulators' chat template",
    },
    reserve: PER_SEND_RESERVE,
    windows,
    spillway_per_message: spillway,
  };
}
