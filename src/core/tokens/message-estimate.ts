import type { Content, Message, ToolDefinition } from '../transcript/index.js';
import { type ImageCostRule, imageTokens } from './image-tokens.js';
import { type ChatTemplateCosts, ESTIMATOR_TEMPLATE } from './overheads.js';
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

/** How a request is rendered for counting: the template's costs and the image rule. */
export interface RenderCosts {
  /** What the template adds around content (default {@link ESTIMATOR_TEMPLATE}). */
  template?: ChatTemplateCosts;
  /** Whose documented image cost applies (default `conservative`). */
  images?: ImageCostRule;
}

/** One message's count, with the part that its reasoning makes (dropped by templates before the
 * last user message). */
export interface MessageCount {
  breakdown: TokenBreakdown;
  /** Tokens of reasoning parts (text in `prose`, their provider fields in `dense`). */
  reasoning: { prose: number; dense: number };
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
  into: MessageCount,
  { kind, images }: { kind: 'prose' | 'dense'; images: ImageCostRule },
): void {
  const breakdown = into.breakdown;
  if (typeof content === 'string') {
    breakdown[kind] += counter.count(content);
    return;
  }
  for (const part of content) {
    if (part.type === 'text' || part.type === 'reasoning') {
      const text = counter.count(part.text);
      const extra = part.extra ? counter.count(JSON.stringify(part.extra)) : 0;
      breakdown[kind] += text;
      breakdown.dense += extra;
      if (part.type === 'reasoning') {
        into.reasoning[kind] += text;
        into.reasoning.dense += extra;
      }
    } else if (part.type === 'image') {
      breakdown.dense += imageTokens(part.value, images);
    } else {
      breakdown.dense += counter.count(JSON.stringify(part.value) ?? '');
    }
  }
}

/** Fields a template renders from `extra`: an OpenAI `name` is text plus its own cost; the rest is
 * counted as JSON, to stay above whatever a server makes of it. */
function extraTokens(message: Message, counter: TokenCounter, template: ChatTemplateCosts): number {
  if (!message.extra) return 0;
  const { name, ...rest } = message.extra;
  let total = 0;
  if (typeof name === 'string') total += counter.count(name) + template.messageName;
  else if (name !== undefined) rest.name = name;
  if (Object.keys(rest).length > 0) total += counter.count(JSON.stringify(rest));
  return total;
}

/** Counts one message with `counter`, uncached, its reasoning apart. */
export function countMessage(message: Message, counter: TokenCounter, costs: RenderCosts = {}): MessageCount {
  const { template = ESTIMATOR_TEMPLATE, images = 'conservative' } = costs;
  const result: MessageCount = { breakdown: emptyBreakdown(), reasoning: { prose: 0, dense: 0 } };
  const breakdown = result.breakdown;
  if (message.role === 'tool') {
    breakdown.overhead += template.toolResult;
    contentTokens(message.content, counter, result, { kind: 'dense', images });
    if (template.callIds) breakdown.dense += counter.count(message.toolCallId);
  } else {
    breakdown.overhead += template.message;
    contentTokens(message.content, counter, result, { kind: 'prose', images });
  }
  if (message.role === 'assistant') {
    for (const call of message.toolCalls ?? []) {
      breakdown.overhead += template.toolCall;
      breakdown.dense += counter.count(call.name) + counter.count(call.arguments);
      if (template.callIds) breakdown.dense += counter.count(call.id);
      if (call.extra) breakdown.dense += counter.count(JSON.stringify(call.extra));
    }
  }
  breakdown.dense += extraTokens(message, counter, template);
  breakdown.total = breakdown.prose + breakdown.dense + breakdown.overhead;
  return result;
}

/** Estimates one message with `counter`, uncached (its reasoning included). */
export function estimateMessage(
  message: Message,
  counter: TokenCounter,
  costs: RenderCosts = {},
): TokenBreakdown {
  return countMessage(message, counter, costs).breakdown;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

const SIMPLE_PROPERTY_KEYS = new Set(['type', 'description', 'enum']);

/**
 * A tool in OpenAI's function format, as the cookbook's `num_tokens_for_tools` counts it: `func_init`,
 * `name:description`, then per property `prop_key` (3) and `key:type:description`, enum items at 3
 * each after `enum_init` (-3), `prop_init` (3) once when there are properties. Schemas beyond flat
 * properties (nesting, arrays, `$ref`…) are counted as their JSON text instead, which runs longer
 * than what the function format renders.
 */
function openAIFunctionTokens(
  tool: ToolDefinition,
  counter: TokenCounter,
): { dense: number; overhead: number } {
  const strip = (text: string) => (text.endsWith('.') ? text.slice(0, -1) : text);
  let dense = counter.count(`${tool.name}:${strip(tool.description ?? '')}`);
  let overhead = 0;
  const properties = record(record(tool.parameters)?.properties) ?? {};
  const flat = Object.values(properties).every((value) => {
    const property = record(value);
    return (
      property !== undefined &&
      typeof property.type === 'string' &&
      Object.keys(property).every((key) => SIMPLE_PROPERTY_KEYS.has(key)) &&
      (property.enum === undefined ||
        (Array.isArray(property.enum) && property.enum.every((item) => typeof item === 'string')))
    );
  });
  if (!flat) return { dense: dense + counter.count(JSON.stringify(tool.parameters)), overhead };
  const entries = Object.entries(properties);
  if (entries.length > 0) overhead += 3;
  for (const [key, value] of entries) {
    const property = value as { type: string; description?: string; enum?: string[] };
    overhead += 3;
    if (property.enum) {
      overhead -= 3;
      for (const item of property.enum) {
        overhead += 3;
        dense += counter.count(item);
      }
    }
    dense += counter.count(`${key}:${property.type}:${strip(property.description ?? '')}`);
  }
  return { dense, overhead };
}

/** Estimates the tool definitions a request carries (they travel with every request). */
export function estimateTools(
  tools: readonly ToolDefinition[],
  counter: TokenCounter,
  { template = ESTIMATOR_TEMPLATE }: RenderCosts = {},
): TokenBreakdown {
  const result = emptyBreakdown();
  if (tools.length > 0) result.overhead += template.toolBlock;
  for (const tool of tools) {
    result.overhead += template.toolDefinition;
    if (template.tools === 'openai-functions') {
      const counted = openAIFunctionTokens(tool, counter);
      result.dense += counted.dense;
      result.overhead += counted.overhead;
    } else {
      result.dense += counter.count(
        JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.parameters }),
      );
    }
  }
  result.total = result.dense + result.overhead;
  return result;
}

/** A breakdown as calibration reads it: text (prose and machine text), and template overhead. */
export function calibrationInputOf(breakdown: TokenBreakdown): { text: number; overhead: number } {
  return { text: breakdown.prose + breakdown.dense, overhead: breakdown.overhead };
}
