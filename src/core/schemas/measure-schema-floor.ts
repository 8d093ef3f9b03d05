/**
 * @module
 * The tool-schema floor: what every request carries before the conversation starts (tool schemas
 * and system messages), attributed to where each tool comes from.
 */
import { estimateMessage, estimateTools, TOOL_BLOCK_OVERHEAD, type TokenCounter } from '../tokens/index.js';
import type { Message, ToolDefinition } from '../transcript/index.js';
import { derivedFrom } from '../transcript/transcript-index.js';

/** The source of tools without a `source`: passed in by the caller. */
export const CALLER_SOURCE = 'caller';

/** The tools of one source and what their schemas cost. */
export interface SchemaSource {
  /** An MCP server name, `builtin`, or {@link CALLER_SOURCE}. */
  source: string;
  tools: number;
  /** Tokens of the schemas, scaled by the tokenizer ratio. */
  tokens: number;
}

/** The floor of one request. */
export interface SchemaFloor {
  /** Tool schemas plus system messages, scaled by the ratio. */
  tokens: number;
  toolTokens: number;
  systemTokens: number;
  /** The tokenizer ratio applied (1–4). */
  ratio: number;
  /** Per source, most tokens first (ties by name). */
  sources: SchemaSource[];
}

/** Inputs of {@link measureSchemaFloor}. */
export interface MeasureSchemaFloorOptions {
  tools: readonly ToolDefinition[];
  /** The request's messages; only system messages count. */
  messages?: readonly Message[];
  counter: TokenCounter;
  /** Raw estimate of one message (a cached lookup in the manager); default: estimated with `counter`. */
  messageEstimate?: (message: Message) => number;
  /** Raw estimate of one tool without the once-per-request tool block (a cached lookup); default: {@link toolEstimate}. */
  toolEstimate?: (tool: ToolDefinition) => number;
  /** The tokenizer ratio (default 1). */
  ratio?: number;
}

/** Raw estimate of one tool definition in a list: its schema and envelope, without the list's frame. */
export function toolEstimate(tool: ToolDefinition, counter: TokenCounter): number {
  return estimateTools([tool], counter).total - TOOL_BLOCK_OVERHEAD;
}

/**
 * Measures the floor: every tool's schema (name, description, parameters, envelope) and every
 * system message, scaled by the tokenizer ratio, with the tools grouped by `source`.
 *
 * @example
 * const floor = measureSchemaFloor({ tools, messages, counter: createEstimator({ family: 'o200k' }) });
 * floor.sources[0]; // { source: 'github', tools: 52, tokens: 34120 }
 */
export function measureSchemaFloor({
  tools,
  messages = [],
  counter,
  messageEstimate = (message) => estimateMessage(message, counter).total,
  toolEstimate: estimateOne = (tool) => toolEstimate(tool, counter),
  ratio = 1,
}: MeasureSchemaFloorOptions): SchemaFloor {
  const bySource = new Map<string, { tools: number; raw: number }>();
  let toolRaw = 0;
  for (const tool of tools) {
    const raw = estimateOne(tool);
    toolRaw += raw;
    const source = tool.source ?? CALLER_SOURCE;
    const entry = bySource.get(source) ?? { tools: 0, raw: 0 };
    entry.tools += 1;
    entry.raw += raw;
    bySource.set(source, entry);
  }
  // The frame around the tool list is paid once per request, by no source in particular.
  if (tools.length > 0) toolRaw += TOOL_BLOCK_OVERHEAD;
  let systemRaw = 0;
  for (const message of systemMessages(messages)) systemRaw += messageEstimate(message);
  const scale = (raw: number) => Math.ceil(raw * ratio);
  const sources = [...bySource.entries()]
    .map(([source, entry]) => ({ source, tools: entry.tools, tokens: scale(entry.raw) }))
    .sort((a, b) => b.tokens - a.tokens || (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
  const toolTokens = scale(toolRaw);
  const systemTokens = scale(systemRaw);
  return { tokens: toolTokens + systemTokens, toolTokens, systemTokens, ratio, sources };
}

const SYSTEM_MESSAGES = Symbol('systemMessages');

/**
 * The system messages of `messages`, kept with their walk: a history sent again is looked at only
 * from where it grew (a request's floor is measured on every send).
 */
function systemMessages(messages: readonly Message[]): readonly Message[] {
  return derivedFrom<readonly Message[]>(messages, 'measureSchemaFloor', SYSTEM_MESSAGES, (previous) => {
    const from = previous?.length ?? 0;
    let found = previous?.value ?? [];
    for (let index = from; index < messages.length; index++) {
      const message = messages[index] as Message;
      // A list of its own once it grows: the earlier one may still be handed to a shorter list.
      if (message.role === 'system') found = [...found, message];
    }
    return found;
  }) as readonly Message[];
}
