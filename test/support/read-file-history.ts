/**
 * A coding agent's history for tests of the passes a send makes: a system prompt, the task, then
 * `turns` turns of one `read_file` call and its short result each.
 */
import type { Message } from '../../src/core/index.js';

export function readFileHistory(turns: number): Message[] {
  const messages: Message[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Fix the failing test.' },
  ];
  for (let turn = 0; turn < turns; turn++) {
    const id = `call_${turn}`;
    messages.push(
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id, name: 'read_file', arguments: `{"path":"f${turn}.ts"}` }],
      },
      { role: 'tool', toolCallId: id, content: `export const value${turn} = ${turn};` },
    );
  }
  return messages;
}
