import {
  createEstimator,
  estimateTokens,
  type Message,
  measureSchemaFloor,
  type SchemaSource,
  splitTurns,
  type ToolDefinition,
  tokenizerFamilyOf,
} from '../core/index.js';

/** Where the context goes, in estimated tokens (Spillway's estimator, uncalibrated). */
export interface ContextBreakdown {
  /** The head: the system prompt and the opening messages, everything before the first assistant message. */
  head: { messages: number; tokens: number };
  /** The turns after the head, without their tool outputs. */
  turns: { count: number; tokens: number };
  toolOutputs: { count: number; tokens: number };
  /** Tool schemas, per source (built-ins, each MCP server). */
  schemas: { tools: number; tokens: number; sources: SchemaSource[] };
  total: number;
}

/**
 * Splits the conversation's estimate into head, turns, tool outputs and tool schemas, for `/context`.
 *
 * @example
 * const breakdown = contextBreakdown({ messages, tools, model: 'gpt-4o' });
 * breakdown.toolOutputs.tokens; // 9120
 */
export function contextBreakdown({
  messages,
  tools,
  model,
}: {
  messages: readonly Message[];
  tools: readonly ToolDefinition[];
  model?: string;
}): ContextBreakdown {
  const options = model === undefined ? {} : { model };
  const { head } = splitTurns(messages);
  const headMessages = messages.slice(head.start, head.end);
  const rest = messages.slice(head.end);
  const outputs = rest.filter((message) => message.role === 'tool');
  const others = rest.filter((message) => message.role !== 'tool');
  const floor = measureSchemaFloor({ tools, counter: createEstimator({ family: tokenizerFamilyOf(model) }) });
  const headTokens = estimateTokens(headMessages, options).total;
  const turnTokens = estimateTokens(others, options).total;
  const outputTokens = estimateTokens(outputs, options).total;
  return {
    head: { messages: headMessages.length, tokens: headTokens },
    turns: { count: splitTurns(messages).turns.length, tokens: turnTokens },
    toolOutputs: { count: outputs.length, tokens: outputTokens },
    schemas: { tools: tools.length, tokens: floor.toolTokens, sources: floor.sources },
    total: headTokens + turnTokens + outputTokens + floor.toolTokens,
  };
}
