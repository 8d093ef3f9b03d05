import type { LoopTool } from '../loop/index.js';

/** Callbacks around each tool run. */
export interface ToolCallReports {
  /** Called as a tool is about to run, with the arguments the model sent. */
  onToolCall?: (call: { name: string; args: unknown; callId: string }) => void;
  /** Called when a tool failed, with what the model is told. */
  onToolError?: (failure: { name: string; message: string }) => void;
}

/**
 * The tools, each wrapped to report its calls and failures. Each tool is wrapped once, so the list
 * keeps its identity between sends and the loop keeps the same tool block bytes.
 *
 * @example
 * const tools = reportToolCalls(() => chatTools, { onToolCall: (call) => printer.toolCall(call) });
 */
export function reportToolCalls(
  tools: () => LoopTool[],
  { onToolCall, onToolError }: ToolCallReports,
): () => LoopTool[] {
  if (!onToolCall && !onToolError) return tools;
  const wrapped = new WeakMap<LoopTool, LoopTool>();
  const wrap = (tool: LoopTool): LoopTool => ({
    ...tool,
    execute: async (args, context) => {
      onToolCall?.({ name: tool.name, args, callId: context.callId });
      try {
        return await tool.execute(args, context);
      } catch (error) {
        onToolError?.({ name: tool.name, message: (error as Error).message ?? String(error) });
        throw error;
      }
    },
  });
  let source: LoopTool[] | undefined;
  let list: LoopTool[] = [];
  return () => {
    const current = tools();
    if (current === source) return list;
    source = current;
    list = current.map((tool) => {
      let entry = wrapped.get(tool);
      if (!entry) {
        entry = wrap(tool);
        wrapped.set(tool, entry);
      }
      return entry;
    });
    return list;
  };
}
