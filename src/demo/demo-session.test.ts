import { describe, expect, it } from 'vitest';
import { getTokenizer } from '../emulator/index.js';
import { DEMO_PASTE_TOKENS, demoSession } from './demo-session.js';

describe('demoSession', () => {
  it('plans turns − 1 tool calls of realistic sizes and an answer', () => {
    const session = demoSession({ turns: 30 });
    expect(session.turns).toBe(30);
    expect(session.calls).toHaveLength(29);
    expect(session.script.replies).toHaveLength(30);
    expect(session.script.replies.at(-1)?.toolCalls).toBeUndefined();
    expect(new Set(session.calls.map((call) => call.name))).toEqual(new Set(['read_file', 'search', 'run']));
    for (const call of session.calls) {
      expect(call.size).toBeGreaterThanOrEqual(300);
      expect(call.size).toBeLessThanOrEqual(2_000);
    }
    expect(session.calls[0]).toEqual({
      name: 'read_file',
      args: { path: 'src/session/session-store.ts' },
      size: 1_600,
    });
  });

  it('has the user paste a CI log after the third turn', () => {
    const session = demoSession({ turns: 30 });
    expect(session.pasteAfter).toBe(3);
    const tokens = getTokenizer('o200k').count(session.paste.content as string);
    expect(tokens).toBeGreaterThanOrEqual(DEMO_PASTE_TOKENS);
    expect(tokens).toBeLessThan(DEMO_PASTE_TOKENS * 1.1);
    expect(demoSession({ turns: 2 }).pasteAfter).toBe(1);
  });

  it('answers each planned call with text of its planned size, the same every time', async () => {
    const session = demoSession({ turns: 6 });
    const tokenizer = getTokenizer('o200k');
    for (const call of session.calls) {
      const tool = session.tools.find((entry) => entry.name === call.name);
      const text = (await tool?.execute(call.args, { callId: 'c' })) as string;
      expect(tokenizer.count(text)).toBeGreaterThanOrEqual(call.size);
      expect(tokenizer.count(text)).toBeLessThan(call.size + 200);
      expect(await tool?.execute(call.args, { callId: 'c' })).toBe(text);
    }
  });
});
