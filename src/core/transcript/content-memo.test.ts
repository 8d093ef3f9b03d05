import { describe, expect, it } from 'vitest';
import { SpillwayError } from '../errors/index.js';
import { fromAnthropic } from './anthropic-messages.js';
import { ContentMemo, walkContent } from './content-memo.js';
import { fromOpenAIChat, toOpenAIChat } from './openai-chat.js';
import { fromResponses, toResponses } from './openai-responses.js';

const tooDeep = () => new Error('too deep');

function body(results: string[]): string {
  const messages: unknown[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Fix the failing test.' },
  ];
  results.forEach((result, index) => {
    messages.push(
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: `call_${index}`, type: 'function', function: { name: 'read_file', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: `call_${index}`, content: result },
    );
  });
  return JSON.stringify({
    model: 'gpt-4o',
    messages,
    tools: [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object' } } }],
  });
}

describe('messages read again from a body parsed anew', () => {
  it('are the objects read the first time, history and tool definitions alike', () => {
    const text = body(['a'.repeat(5_000), 'export const x = 1;']);
    const first = fromOpenAIChat(JSON.parse(text));
    const second = fromOpenAIChat(JSON.parse(text));
    expect(second.messages).not.toBe(first.messages);
    for (const [index, message] of second.messages.entries()) expect(message).toBe(first.messages[index]);
    expect(second.tools[0]).toBe(first.tools[0]);
  });

  it('are read anew when any character differs, however deep in a long text', () => {
    const long = 'line of output\n'.repeat(2_000);
    const changed = `${long.slice(0, 15_007)}X${long.slice(15_008)}`;
    const first = fromOpenAIChat(JSON.parse(body([long])));
    const second = fromOpenAIChat(JSON.parse(body([changed])));
    expect(second.messages[3]).not.toBe(first.messages[3]);
    expect(second.messages[3]?.content).toBe(changed);
    expect(second.messages[2]).toBe(first.messages[2]);
  });

  it('are distinct objects when one body holds two equal messages', () => {
    const parsed = JSON.parse(body(['same']));
    parsed.messages.push({ role: 'user', content: 'again' }, { role: 'user', content: 'again' });
    const request = fromOpenAIChat(parsed);
    expect(request.messages.at(-1)).not.toBe(request.messages.at(-2));
    expect(request.messages.at(-1)).toEqual(request.messages.at(-2));
  });

  it('are written back as the bytes they came as', () => {
    const text = body(['x', 'y']);
    fromOpenAIChat(JSON.parse(text));
    expect(JSON.stringify(toOpenAIChat(fromOpenAIChat(JSON.parse(text))))).toBe(text);
  });

  it("are written back as the caller's own objects of the latest read", () => {
    const text = body(['x', 'y']);
    fromOpenAIChat(JSON.parse(text));
    const parsed = JSON.parse(text);
    const written = toOpenAIChat(fromOpenAIChat(parsed)).messages as unknown[];
    for (const [index, message] of written.entries()) expect(message).toBe(parsed.messages[index]);
  });

  it("are written back as the caller's objects of the latest read when the caller goes back to earlier ones", () => {
    const text = body(['x', 'y']);
    const first = JSON.parse(text);
    const second = JSON.parse(text);
    for (const parsed of [first, first, second, first]) {
      const written = toOpenAIChat(fromOpenAIChat(parsed)).messages as unknown[];
      for (const [index, message] of written.entries()) expect(message).toBe(parsed.messages[index]);
    }
  });

  it("are written back as the caller's objects of the latest read in Responses, a run of items read as one", () => {
    const text = JSON.stringify({
      model: 'gpt-5',
      input: [
        { role: 'user', content: 'Fix the failing test.' },
        { type: 'reasoning', id: 'rs_1', summary: [] },
        { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'export const x = 1;' },
      ],
    });
    const first = JSON.parse(text);
    for (const parsed of [first, JSON.parse(text), first]) {
      const written = toResponses(fromResponses(parsed)).input as unknown[];
      for (const [index, item] of written.entries()) expect(item).toBe(parsed.input[index]);
    }
  });

  it('are found again while a prototype carries an enumerable key, and read as they are', () => {
    const text = body(['kept through pollution']);
    const first = fromOpenAIChat(JSON.parse(text));
    const prototype = Object.prototype as Record<string, unknown>;
    prototype.polluted = 'yes';
    try {
      const second = fromOpenAIChat(JSON.parse(text));
      for (const [index, message] of second.messages.entries()) expect(message).toBe(first.messages[index]);
    } finally {
      delete prototype.polluted;
    }
  });

  it('are read per format: the same JSON is not an Anthropic message and an OpenAI one alike', () => {
    const message = { role: 'user', content: [{ type: 'text', text: 'hello there' }] };
    const openai = fromOpenAIChat({ messages: [message] }).messages[0];
    const anthropic = fromAnthropic({ messages: [message], max_tokens: 10 }).messages[0];
    expect(anthropic).not.toBe(openai);
  });

  it('are refused when nested too deep, as the body check refuses them', () => {
    let deep: unknown = 'end';
    for (let level = 0; level < 600; level++) deep = [deep];
    const parsed = { messages: [{ role: 'user', content: 'hi', metadata: deep }] };
    let thrown: unknown;
    try {
      fromOpenAIChat(parsed);
    } catch (error) {
      thrown = error;
    }
    expect(SpillwayError.isInstance(thrown) && thrown.code).toBe('invalid_transcript');
    expect((thrown as Error).message).toContain('deeper than 512 levels');
  });
});

describe('ContentMemo', () => {
  it('keeps at most its bound of inputs, forgetting the least recently used', () => {
    const memo = new ContentMemo<string>({ maxEntries: 2 });
    const made: string[] = [];
    const read = (text: string) =>
      memo.readList([{ text }], { maxDepth: 8, tooDeep }, (item) => {
        made.push(text);
        return (item as { text: string }).text;
      });
    read('a');
    read('b');
    read('a');
    read('c');
    expect(memo.size).toBeLessThanOrEqual(2);
    read('a');
    read('b');
    expect(made).toEqual(['a', 'b', 'c', 'b']);
  });

  it('counts the parts of what it keeps, not only their characters, against its size', () => {
    // Inputs of many short strings: few characters, but each part keeps memory of its own.
    const input = (tag: number) => ({ tag, fields: Array.from({ length: 200 }, (_, index) => `f${index}`) });
    const memo = new ContentMemo<number>({ maxSize: 100_000 });
    for (let tag = 0; tag < 50; tag++) memo.readList([input(tag)], { maxDepth: 8, tooDeep }, () => tag);
    expect(memo.size).toBeLessThan(50);
    expect(memo.total).toBeLessThanOrEqual(100_000);
  });

  it('tells `found` of an input only when it is another object than the one last handed its value', () => {
    const memo = new ContentMemo<string>();
    const told: unknown[] = [];
    const read = (list: unknown[]) =>
      memo.readList(
        list,
        { maxDepth: 8, tooDeep },
        (item) => JSON.stringify(item),
        (_, item) => told.push(item),
      );
    const own = [{ text: 'a' }, { text: 'b' }];
    const equal = [{ text: 'a' }, { text: 'b' }];
    read(own);
    read(own);
    expect(told).toEqual([]);
    read(equal);
    expect(told).toHaveLength(2);
    expect(told[0]).toBe(equal[0]);
    read(equal);
    read([own[0], equal[1]]);
    expect(told).toHaveLength(3);
    expect(told[2]).toBe(own[0]);
    // Changed in place, the same object is not what its value was made of: made anew.
    (own[0] as { text: string }).text = 'c';
    expect(read(own)).toEqual(['{"text":"c"}', '{"text":"b"}']);
  });

  it('makes a value every time for what JSON does not hold', () => {
    const memo = new ContentMemo<number>();
    let made = 0;
    const item = { at: new Date(0) };
    memo.readList([item], { maxDepth: 8, tooDeep }, () => ++made);
    memo.readList([item], { maxDepth: 8, tooDeep }, () => ++made);
    expect(made).toBe(2);
    expect(walkContent(item, 8)).toBe('not_json');
  });

  it('tells apart inputs whose keys are equal', () => {
    expect(walkContent({ a: '1', b: [2] }, 8)).not.toBe('not_json');
    const memo = new ContentMemo<string>();
    const values = ['ab', 'a\u0000b', 'ba'].map(
      (text) => memo.readList([{ text, list: [text.length] }], { maxDepth: 8, tooDeep }, () => text)[0],
    );
    expect(values).toEqual(['ab', 'a\u0000b', 'ba']);
  });
});
