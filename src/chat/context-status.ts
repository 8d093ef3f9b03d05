/**
 * @module
 * The one figure of how full the window is, shown by the meter after each turn and by `/context`:
 * the provider's count of the last exchange (its prompt tokens plus its reply) while the history is
 * what that exchange left, else the manager's calibrated estimate of the history as the next request
 * would carry it. `/context` splits the same figure into its parts.
 */
import {
  type ContextWindowManager,
  type Message,
  type SchemaSource,
  splitTurns,
  type ToolDefinition,
} from '../core/index.js';
import { type ContextBreakdown, contextBreakdown } from './context-breakdown.js';

/** The provider's count of a request and its reply, with what was sent. */
export interface SentExchange {
  prompt: number;
  completion: number;
  /** The request's messages as sent (older turns pruned, tool outputs shortened), and the reply. */
  sent: readonly Message[];
  tools: readonly ToolDefinition[];
}

/** The exchange a run ended with, and the history it left. */
export interface LastExchange extends SentExchange {
  /** The history right after the exchange: the figure holds while it is unchanged. */
  messages: readonly Message[];
  length: number;
}

/** One part of the figure. */
export interface ContextPart {
  count: number;
  tokens: number;
}

/** How full the window is, and with what. */
export interface ContextStatus {
  /** Tokens the conversation takes in the window now. */
  tokens: number;
  /**
   * `provider`: the provider's count of the last exchange; `anchored`: that count plus the calibrated
   * estimate of what came after it (tool results of a cancelled turn…); `estimate`: the calibrated
   * estimate of the whole history (after a compaction, a resume, a model switch).
   */
  basis: 'provider' | 'anchored' | 'estimate';
  /** The provider's figures `tokens` is made of, when it counted them. */
  reported?: { prompt: number; reply: number };
  /** With `anchored`: the estimated tokens of the messages after the counted exchange. */
  added?: number;
  window: number;
  budget: number;
  /** The parts of `tokens`: the estimator's split of what was sent, scaled to add up to it exactly. */
  parts: {
    head: ContextPart;
    turns: ContextPart;
    toolOutputs: ContextPart;
    schemas: ContextPart & { sources: SchemaSource[] };
  };
  /** Older turns the session keeps that the last request left out to fit. */
  leftOut: { turns: number };
}

/** Scales `values` to add up to `total` exactly (largest remainder). */
export function scaleToTotal(values: readonly number[], total: number): number[] {
  const sum = values.reduce((a, b) => a + b, 0);
  if (sum === 0) return values.map((_, index) => (index === values.length - 1 ? total : 0));
  const exact = values.map((value) => (value * total) / sum);
  const floors = exact.map(Math.floor);
  let left = total - floors.reduce((a, b) => a + b, 0);
  const order = exact
    .map((value, index) => ({ index, rest: value - Math.floor(value) }))
    .sort((a, b) => b.rest - a.rest);
  for (const { index } of order) {
    if (left <= 0) break;
    floors[index] = (floors[index] as number) + 1;
    left--;
  }
  return floors;
}

function partsOf(breakdown: ContextBreakdown, tokens: number): ContextStatus['parts'] {
  const [head = 0, turns = 0, toolOutputs = 0, schemas = 0] = scaleToTotal(
    [breakdown.head.tokens, breakdown.turns.tokens, breakdown.toolOutputs.tokens, breakdown.schemas.tokens],
    tokens,
  );
  return {
    head: { count: breakdown.head.messages, tokens: head },
    turns: { count: breakdown.turns.count, tokens: turns },
    toolOutputs: { count: breakdown.toolOutputs.count, tokens: toolOutputs },
    schemas: {
      count: breakdown.schemas.tools,
      tokens: schemas,
      // Each source's estimate scaled like the schemas' row, so the sources add up to it.
      sources: ((shares) =>
        breakdown.schemas.sources.map((source, index) => ({ ...source, tokens: shares[index] ?? 0 })))(
        scaleToTotal(
          breakdown.schemas.sources.map((source) => source.tokens),
          schemas,
        ),
      ),
    },
  };
}

/** Whether the last exchange still describes `messages` (nothing added, taken out or rewritten). */
function stillCurrent(last: LastExchange | undefined, messages: readonly Message[]): last is LastExchange {
  return last !== undefined && last.length === messages.length && last.messages.at(-1) === messages.at(-1);
}

/** The messages after `sent` when the history starts with exactly what was sent, else `undefined`. */
function appendedAfter(sent: readonly Message[], messages: readonly Message[]): Message[] | undefined {
  if (messages.length < sent.length) return undefined;
  for (let index = 0; index < sent.length; index++)
    if (sent[index] !== messages[index] && JSON.stringify(sent[index]) !== JSON.stringify(messages[index]))
      return undefined;
  return messages.slice(sent.length);
}

/** Tool definitions as a request carries them (a tool's `execute` left out). */
function definitionsOf(tools: readonly ToolDefinition[]): ToolDefinition[] {
  return tools.map(({ name, description, parameters }) => ({
    name,
    ...(description === undefined ? {} : { description }),
    ...(parameters === undefined ? {} : { parameters }),
  }));
}

/**
 * The window's fill for the meter and `/context`, from one computation, on the best count there is:
 * the provider's count of the last exchange, else that count plus an estimate of what came after,
 * else the calibrated estimate.
 *
 * @example
 * const status = contextStatus({ messages, tools, model, manager, window, budget, last });
 * status.tokens; // 12_345, the same in the meter and in /context
 */
export function contextStatus({
  messages,
  tools,
  model,
  manager,
  window,
  budget,
  last,
  lastSent,
}: {
  messages: readonly Message[];
  tools: readonly ToolDefinition[];
  model: string;
  manager: ContextWindowManager;
  window: number;
  budget: number;
  last?: LastExchange;
  /** The newest request the provider counted, when the history may have grown since. */
  lastSent?: SentExchange;
}): ContextStatus {
  const measure = (list: readonly Message[], requestTools: readonly ToolDefinition[]) =>
    list.length === 0
      ? 0
      : manager.measure({
          format: 'openai',
          model,
          messages: [...list],
          tools: definitionsOf(requestTools),
          extra: {},
        }).estimate;
  if (stillCurrent(last, messages)) {
    const tokens = last.prompt + last.completion;
    const leftOut = splitTurns(messages).turns.length - splitTurns(last.sent).turns.length;
    return {
      tokens,
      basis: 'provider',
      reported: { prompt: last.prompt, reply: last.completion },
      window,
      budget,
      parts: partsOf(contextBreakdown({ messages: last.sent, tools: last.tools, model }), tokens),
      leftOut: { turns: Math.max(0, leftOut) },
    };
  }
  const appended = lastSent ? appendedAfter(lastSent.sent, messages) : undefined;
  if (lastSent && appended) {
    const added = measure(appended, []);
    const tokens = lastSent.prompt + lastSent.completion + added;
    return {
      tokens,
      basis: 'anchored',
      reported: { prompt: lastSent.prompt, reply: lastSent.completion },
      added,
      window,
      budget,
      parts: partsOf(contextBreakdown({ messages, tools: lastSent.tools, model }), tokens),
      leftOut: { turns: 0 },
    };
  }
  const tokens = measure(messages, tools);
  return {
    tokens,
    basis: 'estimate',
    window,
    budget,
    parts: partsOf(contextBreakdown({ messages, tools, model }), tokens),
    leftOut: { turns: 0 },
  };
}
