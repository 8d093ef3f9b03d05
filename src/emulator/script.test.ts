import { describe, expect, it } from 'vitest';
import { fakeToolResult } from './fake-tool-result.js';
import { breakArguments, generateReply } from './generate-reply.js';
import { codingAgentScript, parseScript, replyIndex, resolveReply } from './script.js';
import { getTokenizer } from './tokenizer.js';

const tokenizer = getTokenizer('o200k');
const ids = (index: number) => `call_${index}`;

describe('replyIndex', () => {
  const script = { replies: [{ text: 'a' }, { text: 'b' }, { text: 'c' }] };

  it('picks the reply by the assistant turns the conversation already has', () => {
    expect(replyIndex(script, { assistantTurns: 1, requestNumber: 9 })).toBe(1);
  });

  it('picks the reply by request number when asked to', () => {
    expect(replyIndex({ ...script, selectBy: 'request' }, { assistantTurns: 0, requestNumber: 3 })).toBe(2);
  });

  it('repeats the last reply past the end, or cycles', () => {
    expect(replyIndex(script, { assistantTurns: 7, requestNumber: 1 })).toBe(2);
    expect(replyIndex({ ...script, after: 'cycle' }, { assistantTurns: 7, requestNumber: 1 })).toBe(1);
  });
});

describe('resolveReply', () => {
  it('gives the same text for the same seed and turn, and different text for another seed', () => {
    const reply = {
      textTokens: 30,
      reasoningTokens: 20,
      toolCalls: [{ name: 'write', arguments: { path: 'a' }, argumentsTokens: 50 }],
    };
    const one = resolveReply(reply, { seed: 1, index: 4, declaredTools: [] });
    expect(resolveReply(reply, { seed: 1, index: 4, declaredTools: [] })).toEqual(one);
    expect(resolveReply(reply, { seed: 2, index: 4, declaredTools: [] }).text).not.toBe(one.text);
    const args = JSON.parse(one.toolCalls[0]?.arguments ?? '{}') as { path: string; content: string };
    expect(args.path).toBe('a');
    expect(tokenizer.count(args.content)).toBeGreaterThan(40);
  });

  it('sends raw-text arguments as they are', () => {
    const resolved = resolveReply(
      { toolCalls: [{ name: 'f', arguments: '{"unterminated' }] },
      { seed: 0, index: 0, declaredTools: [] },
    );
    expect(resolved.toolCalls[0]?.arguments).toBe('{"unterminated');
  });

  it('calls only declared tools when the script adapts to them, and none when none are declared', () => {
    const script = codingAgentScript({ turns: 3, seed: 5 });
    const reply = script.replies[1] ?? {};
    const adapted = resolveReply(reply, {
      seed: 5,
      index: 1,
      declaredTools: ['grep_files'],
      adaptToTools: true,
    });
    expect(adapted.toolCalls.map((call) => call.name)).toEqual(['grep_files']);
    expect(
      resolveReply(reply, { seed: 5, index: 1, declaredTools: [], adaptToTools: true }).toolCalls,
    ).toEqual([]);
  });
});

describe('codingAgentScript', () => {
  it('calls read_file, search or run on every turn and ends with a text answer', () => {
    const script = codingAgentScript({ turns: 12, seed: 9 });
    expect(script.replies).toHaveLength(13);
    for (const reply of script.replies.slice(0, 12))
      expect(['read_file', 'search', 'run']).toContain(reply.toolCalls?.[0]?.name);
    expect(script.replies[12]?.toolCalls).toBeUndefined();
    expect(codingAgentScript({ turns: 12, seed: 9 })).toEqual(script);
  });
});

describe('parseScript', () => {
  it('accepts an array of replies', () => {
    expect(parseScript([{ text: 'Done.' }])).toEqual({ replies: [{ text: 'Done.' }] });
  });

  it('names the path of the first wrong field', () => {
    expect(() => parseScript({ replies: [{ text: 'ok' }, { textTokens: -1 }] })).toThrow(
      'script.replies[1].textTokens must be an integer >= 0',
    );
    expect(() => parseScript({ replies: [{ toolCalls: [{ name: '' }] }] })).toThrow(
      'script.replies[0].toolCalls[0].name',
    );
    expect(() => parseScript({ replies: [], selectBy: 'time' })).toThrow('script.selectBy');
    expect(() => parseScript({ replies: [{ txt: 'typo' }] })).toThrow(
      'script.replies[0].txt is not a reply field',
    );
  });
});

describe('generateReply', () => {
  const reply = {
    reasoning: 'Let me think about it.',
    text: 'I will read the file now.',
    toolCalls: [{ name: 'read_file', arguments: '{"path":"src/index.ts"}' }],
  };

  it('counts reasoning, text, the tool-call envelope and the end-of-turn token', () => {
    const generated = generateReply({ reply, limit: 1_000, tokenizer, callId: ids });
    expect(generated.finish).toBe('tool_calls');
    const envelope =
      '\n<tool_call>\n{"name": "read_file", "arguments": {"path": "src/index.ts"}}\n</tool_call>';
    expect(generated.completionTokens).toBe(
      tokenizer.count(reply.reasoning) + tokenizer.count(reply.text) + tokenizer.count(envelope) + 1,
    );
    expect(generated.reasoningTokens).toBe(tokenizer.count(reply.reasoning));
    expect(generated.toolCalls).toEqual([
      { id: 'call_0', name: 'read_file', arguments: '{"path":"src/index.ts"}' },
    ]);
  });

  it('stops at exactly the limit with finish length, inside the text', () => {
    const limit = tokenizer.count(reply.reasoning) + 3;
    const generated = generateReply({ reply, limit, tokenizer, callId: ids });
    expect(generated).toMatchObject({ finish: 'length', completionTokens: limit, toolCalls: [] });
    expect(tokenizer.count(generated.text)).toBe(3);
  });

  it('cuts a tool call that does not fit, leaving arguments that do not parse', () => {
    const full = generateReply({ reply, limit: 1_000, tokenizer, callId: ids }).completionTokens;
    const generated = generateReply({ reply, limit: full - 4, tokenizer, callId: ids });
    expect(generated.finish).toBe('length');
    expect(generated.completionTokens).toBe(full - 4);
    expect(() => JSON.parse(generated.toolCalls[0]?.arguments ?? '')).toThrow();
  });

  it('breakArguments always yields text that is not JSON', () => {
    for (const text of ['{}', '{"a":1}', '{"path":"src/index.ts","content":"x"}'])
      expect(() => JSON.parse(breakArguments(text))).toThrow();
  });
});

describe('fakeToolResult', () => {
  it('is deterministic and close to the requested size', () => {
    const options = { name: 'read_file', args: { path: 'src/a.ts' }, seed: 3, size: 800 };
    const text = fakeToolResult(options);
    expect(fakeToolResult(options)).toBe(text);
    expect(fakeToolResult({ ...options, seed: 4 })).not.toBe(text);
    const tokens = tokenizer.count(text);
    expect(tokens).toBeGreaterThanOrEqual(780);
    expect(tokens).toBeLessThan(900);
  });

  it('shapes its text after the tool', () => {
    expect(fakeToolResult({ name: 'read_file', size: 50 })).toMatch(/^\s+1\t/);
    expect(fakeToolResult({ name: 'search', args: { query: 'maxTokens' }, size: 50 })).toMatch(
      /^src\/\w+\/\w+\.ts:\d+:.*maxTokens/,
    );
    expect(fakeToolResult({ name: 'run', args: { command: 'npm test' }, size: 50 })).toMatch(
      /^\$ npm test\n/,
    );
  });

  it('picks a typical size from the seed when none is given', () => {
    const tokens = tokenizer.count(fakeToolResult({ name: 'read_file', args: '{"path":"x.ts"}', seed: 1 }));
    expect(tokens).toBeGreaterThanOrEqual(600);
    expect(tokens).toBeLessThan(4_200);
  });
});
