import type { Content, ToolDefinition } from '../core/index.js';

/** A tool the loop can run: its definition and what it does. */
export interface LoopTool extends ToolDefinition {
  /** Runs the tool. `args` is the parsed JSON the model sent. Throw to report a failure to the model. */
  execute(args: unknown, context: { signal?: AbortSignal; callId: string }): Promise<Content> | Content;
}

/** The definition part of a tool, as it travels in requests. */
export function definitionOf(tool: LoopTool): ToolDefinition {
  const definition: ToolDefinition = { name: tool.name };
  if (tool.description !== undefined) definition.description = tool.description;
  if (tool.parameters !== undefined) definition.parameters = tool.parameters;
  if (tool.source !== undefined) definition.source = tool.source;
  return definition;
}
