import { describe, expect, it } from 'vitest';
import { resolveReply } from './script.js';
import { chatAgentScript } from './script-chat-agent.js';
import { fillPlaceholders } from './script-placeholders.js';
import { selectScript } from './script-select.js';

const CHAT_TOOLS = ['read_file', 'list_directory', 'search_text', 'write_file', 'edit_file', 'run_command'];

describe('the chat script', () => {
  it('is chosen for requests that declare chat’s tools when no script was given', () => {
    const given = { replies: [{ text: 'given' }] };
    expect(selectScript({ script: given, chosen: false, declaredTools: CHAT_TOOLS })).toEqual(
      chatAgentScript(),
    );
    expect(selectScript({ script: given, chosen: true, declaredTools: CHAT_TOOLS })).toBe(given);
    expect(
      selectScript({ script: given, chosen: false, declaredTools: ['read_file', 'search', 'run'] }),
    ).toBe(given);
  });

  it('lists, reads a file the listing showed, searches a word of the prompt, then answers', () => {
    const script = chatAgentScript();
    const openai = [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'Where do we retry requests?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'list_directory', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'src/\nindex.ts  120 bytes\npackage.json  300 bytes' },
    ];
    const calls = script.replies.map(
      (reply, index) =>
        resolveReply(reply, {
          seed: 0,
          index,
          declaredTools: CHAT_TOOLS,
          adaptToTools: true,
          messages: openai,
        }).toolCalls,
    );
    expect(calls.slice(0, 3)).toEqual([
      [{ name: 'list_directory', arguments: '{"path":"."}' }],
      [{ name: 'read_file', arguments: '{"path":"package.json"}' }],
      [{ name: 'search_text', arguments: '{"query":"requests"}' }],
    ]);
    expect(calls[3]).toEqual([]);
    expect(script.after).toBe('cycle');
  });

  it('reads Anthropic tool_result blocks too, and falls back when nothing was listed', () => {
    const anthropic = [
      { role: 'user', content: [{ type: 'text', text: 'Explain the budget' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'list_directory', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'notes.txt  5 bytes' }] },
        ],
      },
    ];
    expect(fillPlaceholders('{{listed_file}} {{prompt_word}}', anthropic)).toBe('notes.txt Explain');
    expect(fillPlaceholders('{{listed_file}} {{prompt_word}}', [])).toBe('README.md TODO');
    expect(fillPlaceholders('no placeholder', [])).toBe('no placeholder');
  });
});
