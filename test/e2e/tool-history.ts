import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { fakeToolResult } from '../../src/emulator/index.js';

/**
 * A coding-agent history of `turns` tool turns, each result about `size` tokens. The call ids carry
 * the emulator's reply marker (`call_R…`), so its script knows how far the conversation has got.
 */
export function toolHistory(turns: number, size: number): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Find the failing test and fix it.' },
  ];
  for (let turn = 0; turn < turns; turn++) {
    const id = `call_R${turn.toString(36).padStart(3, '0')}history${turn}`;
    const args = JSON.stringify({ path: `src/file-${turn}.ts` });
    messages.push({
      role: 'assistant',
      content: `Reading file ${turn}.`,
      tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: args } }],
    });
    messages.push({
      role: 'tool',
      tool_call_id: id,
      content: fakeToolResult({ name: 'read_file', args, seed: turn, size }),
    });
  }
  return messages;
}
