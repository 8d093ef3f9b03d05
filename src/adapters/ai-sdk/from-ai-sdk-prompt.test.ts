import { describe, expect, it } from 'vitest';
import type { LanguageModelPrompt } from './ai-sdk-types.js';
import { fromAISDKPrompt } from './from-ai-sdk-prompt.js';
import { toAISDKPrompt } from './to-ai-sdk-prompt.js';

function prompt(): LanguageModelPrompt {
  return [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: [{ type: 'text', text: 'Fix the failing test.' }] },
    {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'a.ts' } }],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'read_file',
          output: { type: 'text', value: 'export {}' },
        },
      ],
    },
  ] as LanguageModelPrompt;
}

describe('an AI SDK prompt read again', () => {
  it('gives the messages read the first time, and writes back the caller’s objects of this call', () => {
    const first = fromAISDKPrompt({ prompt: prompt() });
    const again = prompt();
    const second = fromAISDKPrompt({ prompt: again });
    for (const [index, message] of second.messages.entries()) expect(message).toBe(first.messages[index]);
    const written = toAISDKPrompt({ messages: second.messages });
    for (const [index, message] of (written as unknown[]).entries()) expect(message).toBe(again[index]);
  });
});
