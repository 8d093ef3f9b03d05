import { describe, expect, it } from 'vitest';
import { ContextTruncatedError } from '../errors/index.js';
import type { ChatRequest, Message, ToolDefinition } from '../transcript/index.js';
import { ContextWindowManager } from './context-window-manager.js';
import type { ManagerEvent } from './events.js';

const head: Message[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Fix the failing test.' },
];

function turn(index: number, size: number): Message[] {
  const id = `call_${index}`;
  return [
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ id, name: 'read_file', arguments: `{"path":"f${index}"}` }],
    },
    { role: 'tool', toolCallId: id, content: `export const value${index} = ${index};\n`.repeat(size) },
  ];
}

function schemaTools(source: string, count: number): ToolDefinition[] {
  return Array.from({ length: count }, (_, index) => ({
    name: `${source}_tool_${index}`,
    description: `Runs operation ${index} of ${source}.`,
    parameters: {
      type: 'object',
      properties: {
        id: { type: 'string', description: 'The id of the record to act on.' },
        query: { type: 'string', description: 'A filter in the query language of the service.' },
      },
    },
    source,
  }));
}

/** A counter trusted to count as the provider does, for these tests: a token per four characters. */
const quarterCounter = { name: 'test/chars-per-4', count: (text: string) => Math.ceil(text.length / 4) };

function request(messages: Message[], tools: ToolDefinition[] = []): ChatRequest {
  return { format: 'openai', model: 'qwen2.5:7b', messages, tools, extra: {} };
}

describe('ContextWindowManager notices', () => {
  it('raises a schema-floor warning once, naming the costliest server', () => {
    const events: ManagerEvent[] = [];
    const tools = [...schemaTools('github', 45), ...schemaTools('jira', 10)];
    const manager = new ContextWindowManager({
      contextLength: 12_000,
      onEvent: (event) => events.push(event),
    });
    const first = manager.fit(request(head, tools));
    expect(first.notices).toHaveLength(1);
    expect(first.notices[0]).toMatchObject({ code: 'tool_schema_floor', level: 'warning' });
    expect(first.notices[0]?.message).toMatch(
      /^tool schemas use .* of the 12k context window — github .* \(45 tools\), jira/,
    );
    expect(manager.fit(request(head, tools)).notices).toEqual([]);
    expect(events.filter((event) => event.type === 'notice')).toHaveLength(1);
  });

  it('keeps the history and names the servers when the schemas alone leave no room', () => {
    const events: ManagerEvent[] = [];
    const tools = schemaTools('tracker', 300);
    const messages = [...head, ...turn(1, 5), ...turn(2, 5)];
    const snapshot = structuredClone(messages);
    const manager = new ContextWindowManager({
      contextLength: 8_192,
      onEvent: (event) => events.push(event),
    });
    expect(() => manager.fit(request(messages, tools))).toThrow(ContextTruncatedError);
    try {
      manager.fit(request(messages, tools));
    } catch (error) {
      expect((error as Error).message).toMatch(
        /The largest part is tool schemas and request overhead, about \d+ tokens .*\(tracker \d+k \(300 tools\)\)/,
      );
    }
    expect(messages).toEqual(snapshot);
    const notice = events.find((event) => event.type === 'notice');
    expect(notice).toMatchObject({ type: 'notice', level: 'error', notice: { code: 'tool_schema_floor' } });
  });

  it('learns the window from a silent truncation a trusted count shows, and does not anchor on it', () => {
    const manager = new ContextWindowManager({ contextLength: 32_768, exact: quarterCounter });
    const messages = [...head, ...turn(1, 2_000)];
    const fitted = manager.fit(request(messages));
    expect(fitted.window).toBe(32_768);
    const notice = manager.observe({ promptTokens: 2_048 });
    expect(notice).toMatchObject({
      code: 'silent_truncation',
      model: 'qwen2.5:7b',
      reported: 2_048,
      window: 2_048,
    });
    expect(manager.windowFor('qwen2.5:7b')).toBe(2_048);
    const next = manager.fit(request([...messages, ...turn(2, 1)]));
    expect(next.window).toBe(2_048);
    expect(next.anchored).toBe(false);
  });

  it('only suspects a truncation the estimate alone sees, and keeps the window', () => {
    const manager = new ContextWindowManager({ contextLength: 32_768 });
    const messages = [...head, ...turn(1, 2_000)];
    manager.fit(request(messages));
    const notice = manager.observe({ promptTokens: 2_048 });
    expect(notice).toMatchObject({ code: 'suspected_truncation', level: 'info', reported: 2_048 });
    expect(manager.windowFor('qwen2.5:7b')).toBe(32_768);
    // A count of the request settles it.
    const counted = manager.confirmTruncation({ promptTokens: 19_000, reported: 2_048 });
    expect(counted).toMatchObject({ code: 'silent_truncation', window: 2_048 });
    expect(manager.windowFor('qwen2.5:7b')).toBe(2_048);
  });

  it('flags a prompt that grew by a tool result but was reported smaller', () => {
    const manager = new ContextWindowManager({ contextLength: 32_768 });
    const messages = [...head, ...turn(1, 40)];
    const first = manager.fit(request(messages));
    const reported = Math.ceil(first.breakdown.total * 0.6);
    expect(manager.observe({ promptTokens: reported })).toBeUndefined();
    const grown = [...messages, ...turn(2, 80)];
    expect(manager.fit(request(grown)).anchored).toBe(true);
    expect(manager.observe({ promptTokens: reported - 200 })).toMatchObject({ code: 'silent_truncation' });
  });

  it('does not flag ordinary over-count, nor anything when detection is off', () => {
    const manager = new ContextWindowManager({ contextLength: 32_768 });
    const messages = [...head, ...turn(1, 200)];
    const fitted = manager.fit(request(messages));
    expect(manager.observe({ promptTokens: Math.ceil(fitted.breakdown.total / 2.4) })).toBeUndefined();
    const off = new ContextWindowManager({ contextLength: 32_768, detectSilentTruncation: false });
    off.fit(request(messages));
    expect(off.observe({ promptTokens: 1_100 })).toBeUndefined();
    expect(off.windowFor('qwen2.5:7b')).toBe(32_768);
  });
});
