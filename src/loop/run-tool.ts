import type { Content, ToolCall, ToolMessage } from '../core/index.js';
import type { LoopEvent } from './loop-events.js';
import type { LoopTool } from './tool.js';

/** Runs one tool call; a missing tool, bad JSON or a throw becomes an error result for the model. */
export async function runTool({
  call,
  tool,
  signal,
  onEvent,
  iteration,
}: {
  call: ToolCall;
  tool: LoopTool | undefined;
  signal?: AbortSignal;
  onEvent?: (event: LoopEvent) => void;
  iteration: number;
}): Promise<ToolMessage> {
  onEvent?.({ type: 'tool-start', iteration, callId: call.id, name: call.name });
  let content: Content;
  let isError = false;
  if (!tool) {
    content = `Error: there is no tool named ${JSON.stringify(call.name)}.`;
    isError = true;
  } else {
    try {
      const args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
      content = await tool.execute(args, { ...(signal ? { signal } : {}), callId: call.id });
    } catch (error) {
      content = `Error: ${(error as Error).message ?? String(error)}`;
      isError = true;
    }
  }
  onEvent?.({ type: 'tool-end', iteration, callId: call.id, name: call.name, isError });
  const message: ToolMessage = { role: 'tool', toolCallId: call.id, content };
  if (isError) message.isError = true;
  return message;
}
