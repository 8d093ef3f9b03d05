import { describe, expect, it, vi } from 'vitest';
import { jsonTextDepthExcess } from './json-depth.js';
import {
  commonBytePrefixLength,
  commonPrefixLength,
  JsonTextMemo,
  type JsonTextRead,
} from './json-text-memo.js';
import { fromOpenAIChat } from './openai-chat.js';

const tool = (turn: number) => [
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: `call_${turn}`, type: 'function', function: { name: 'read', arguments: `{"path":"f${turn}"}` } },
    ],
  },
  { role: 'tool', tool_call_id: `call_${turn}`, content: `contents of f${turn}: ${'x'.repeat(2_000)}` },
];
const session = (turns: number, extra: Record<string, unknown> = {}) => ({
  model: 'gpt-4o',
  response_format: { type: 'text' },
  messages: [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Fix the failing test.' },
    ...Array.from({ length: turns }, (_, turn) => tool(turn)).flat(),
  ],
  max_tokens: 1_000,
  ...extra,
});

/** Whether every item of `list` is the very object at the same place of `earlier`. */
function sameObjects(list: unknown, earlier: unknown): boolean {
  return (list as unknown[]).every((item, index) => item === (earlier as unknown[])[index]);
}

function bodyOf(read: JsonTextRead): Record<string, unknown> {
  if (read.kind !== 'value') throw new Error(`expected a value, got ${read.kind}`);
  return read.value as Record<string, unknown>;
}

describe('JsonTextMemo', () => {
  it('parses a resent conversation from its newest turn on, with the earlier messages the same objects', () => {
    const memo = new JsonTextMemo();
    const first = memo.read(JSON.stringify(session(5)));
    expect(first).toMatchObject({ kind: 'value', reused: 0 });
    const text = JSON.stringify(session(6));
    const second = memo.read(text);
    expect(bodyOf(second)).toStrictEqual(JSON.parse(text));
    // The fifth body is taken as read whole: its messages, and the fields after them, which end the
    // sixth alike.
    const shared = JSON.stringify(session(5));
    expect(second.kind === 'value' && second.reused).toBe(shared.length);
    const before = bodyOf(first).messages as unknown[];
    const after = bodyOf(second).messages as unknown[];
    expect(sameObjects(after.slice(0, before.length), before)).toBe(true);
    expect(after).not.toBe(before);
  });

  it('takes a body sent again as it was whole, as text and as bytes, each read its own fields', () => {
    for (const encode of [(text: string) => text, (text: string) => Buffer.from(text)]) {
      const memo = new JsonTextMemo();
      const text = JSON.stringify(session(8, { tools: [{ type: 'function', function: { name: 'read' } }] }));
      const first = bodyOf(memo.read(encode(text)));
      const parse = vi.spyOn(JSON, 'parse');
      const again = memo.read(encode(text));
      expect(parse).not.toHaveBeenCalled();
      parse.mockRestore();
      expect(again.kind === 'value' && again.reused).toBe(encode(text).length);
      const second = bodyOf(again);
      expect(second).toStrictEqual(JSON.parse(text));
      expect(sameObjects(second.messages, first.messages)).toBe(true);
      // A caller that changes its body changes neither the other reads nor what is remembered.
      expect(second.messages).not.toBe(first.messages);
      expect(second.response_format).not.toBe(first.response_format);
      (second.messages as unknown[]).pop();
      (second.response_format as Record<string, unknown>).type = 'json_object';
      expect(bodyOf(memo.read(encode(text)))).toStrictEqual(JSON.parse(text));
      expect(memo.size).toBe(1);
    }
  });

  it('reads a resend that differs only in a field after the messages without parsing them again', () => {
    const memo = new JsonTextMemo();
    memo.read(JSON.stringify(session(20, { user: 'one' })));
    const text = JSON.stringify(session(20, { user: 'two' }));
    const read = memo.read(text);
    expect(bodyOf(read)).toStrictEqual(JSON.parse(text));
    expect(read.kind === 'value' && read.reused).toBeGreaterThan(text.length - 100);
  });

  it('takes the fields after the messages (tools, settings) as read when they end the next body alike', () => {
    const tools = Array.from({ length: 8 }, (_, index) => ({
      type: 'function',
      function: {
        name: `tool_${index}`,
        parameters: { type: 'object', properties: { path: { type: 'string' } } },
      },
    }));
    for (const indent of [0, 2]) {
      const memo = new JsonTextMemo();
      const textOf = (turns: number, extra: Record<string, unknown> = {}) =>
        JSON.stringify(session(turns, { tools, stream: true, ...extra }), null, indent);
      const first = bodyOf(memo.read(textOf(5)));
      // A turn added, then the newest one taken back: only what lies between is read.
      for (const turns of [6, 5, 7]) {
        const text = textOf(turns);
        const read = memo.read(text);
        const value = bodyOf(read);
        expect(value).toStrictEqual(JSON.parse(text));
        expect(sameObjects(value.tools, first.tools)).toBe(true);
        expect(value.tools).not.toBe(first.tools);
        expect(read.kind === 'value' && read.reused).toBeGreaterThan(text.length - 2 * 2_200);
      }
      // Fields after the messages that changed are read again.
      const changed = textOf(8, { stream: false });
      const read = memo.read(changed);
      expect(bodyOf(read)).toStrictEqual(JSON.parse(changed));
      expect(bodyOf(read).tools).toStrictEqual(tools);
      expect(read.kind === 'value' && read.reused).toBeLessThan(changed.lastIndexOf('"tools"'));
    }
  });

  it('keeps one body per conversation when its tool list is most of the body', () => {
    const tools = Array.from({ length: 40 }, (_, index) => ({
      type: 'function',
      function: { name: `tool_${index}`, description: `Does thing ${index}. ${'More words. '.repeat(100)}` },
    }));
    for (const wrap of [
      (value: unknown) => JSON.stringify(value),
      (value: unknown) => Buffer.from(JSON.stringify(value)),
    ]) {
      const memo = new JsonTextMemo();
      for (let turns = 1; turns <= 20; turns++) {
        const body = session(turns, { tools });
        const read = memo.read(wrap(body));
        expect(bodyOf(read)).toStrictEqual(JSON.parse(JSON.stringify(body)));
        // Each body takes the place of the one before: the tools, 50 KB, are most of every one.
        expect(memo.size).toBe(1);
      }
    }
  });

  it('changes no remembered body when a body read from it is taken over later', () => {
    // Another conversation read from the first holds the arrays it did not change: reading on from it
    // must not change them under the first.
    for (const [first, other, next] of [
      [
        `{"s":["x","y"],"m":["a","${'b'.repeat(100)}"]}`,
        `{"s":["x","y"],"m":["a","${'c'.repeat(100)}"]}`,
        `{"s":["x","${'q'.repeat(120)}"],"m":["a","${'c'.repeat(100)}"]}`,
      ],
      [
        `{"m":["a","${'b'.repeat(100)}"],"t":["x","y"]}`,
        `{"m":["a","${'c'.repeat(100)}"],"t":["x","y"]}`,
        `{"m":["a","${'c'.repeat(100)}"],"t":["x","${'q'.repeat(120)}"]}`,
      ],
    ] as const) {
      const memo = new JsonTextMemo({ minChars: 1 });
      for (const text of [first, other, next, first])
        expect(bodyOf(memo.read(text))).toStrictEqual(JSON.parse(text));
    }
  });

  it('refuses text that goes on from an item without a comma, as JSON.parse does', () => {
    for (const [first, next] of [
      ['{"m":["a","b"],"t":1}', '{"m":["a".5],"t":1}'],
      ['{"m":["a","b"],"t":1}', '{"m":["a"e3,"c"],"t":1}'],
      ['{"m":["a","b"],"t":1}', '{"m":["a"E+1,"c"],"u":2}'],
    ] as const) {
      const memo = new JsonTextMemo({ minChars: 1 });
      memo.read(first);
      expect(memo.read(next).kind).toBe('not_json');
      expect(memo.read(Buffer.from(first)).kind).toBe('value');
      expect(memo.read(Buffer.from(next)).kind).toBe('not_json');
    }
  });

  it('hands every read fields of its own: a caller changing one changes no later read', () => {
    const memo = new JsonTextMemo();
    const first = bodyOf(memo.read(JSON.stringify(session(5))));
    (first.response_format as Record<string, unknown>).type = 'json_object';
    (first.messages as unknown[]).length = 0;
    const text = JSON.stringify(session(6));
    expect(bodyOf(memo.read(text))).toStrictEqual(JSON.parse(text));
  });

  it('hands out "__proto__" keys as fields, at any depth, as JSON.parse reads them', () => {
    const memo = new JsonTextMemo();
    const text = (turns: number) =>
      `{"model":"m","stream_options":{"__proto__":{"x":[{"__proto__":1}]},"include_usage":true},"messages":${JSON.stringify(session(turns).messages)}}`;
    const first = bodyOf(memo.read(text(5)));
    expect(first).toStrictEqual(JSON.parse(text(5)));
    const options = first.stream_options as Record<string, unknown>;
    expect(Object.getPrototypeOf(options)).toBe(Object.prototype);
    const own = Object.getOwnPropertyDescriptor(options, '__proto__')?.value as Record<string, unknown>;
    (own.x as unknown[]).push('changed');
    const read = memo.read(text(6));
    expect(read.kind === 'value' && read.reused).toBeGreaterThan(0);
    expect(bodyOf(read)).toStrictEqual(JSON.parse(text(6)));
  });

  it('names where a resent body first nests too deep, in the part it parses', () => {
    const memo = new JsonTextMemo({ maxDepth: 8 });
    memo.read(JSON.stringify(session(5)));
    const deep = JSON.stringify(session(5, { metadata: JSON.parse(`${'['.repeat(20)}${']'.repeat(20)}`) }));
    const read = memo.read(deep);
    // The body is level 1 and the array level 2: the eighth bracket of the run is level 9.
    expect(read).toEqual({ kind: 'too_deep', excess: { offset: deep.indexOf('[[') + 7, maxDepth: 8 } });
    expect(jsonTextDepthExcess(deep, 8)).toEqual({ offset: deep.indexOf('[[') + 7, maxDepth: 8 });
  });

  it("says a resent body is not JSON with JSON.parse's own error", () => {
    const memo = new JsonTextMemo();
    const text = JSON.stringify(session(5));
    memo.read(text);
    const read = memo.read(`${text.slice(0, -20)}`);
    expect(read.kind).toBe('not_json');
    expect(read.kind === 'not_json' && read.error).toBeInstanceOf(SyntaxError);
  });

  it('parses whole a resend whose later part writes a key again, as JSON.parse reads it', () => {
    const memo = new JsonTextMemo();
    memo.read(JSON.stringify(session(5)));
    const text = `${JSON.stringify(session(6)).slice(0, -1)},"model":"gpt-4o-mini"}`;
    const read = memo.read(text);
    expect(bodyOf(read)).toStrictEqual(JSON.parse(text));
    expect(read.kind === 'value' && read.reused).toBe(0);
  });

  it('reads each of many conversations that open alike from its own previous body', () => {
    const memo = new JsonTextMemo();
    const opening = { role: 'system', content: `The same long system prompt. ${'Rules. '.repeat(2_000)}` };
    const conversation = (id: number, turns: number) => ({
      model: 'gpt-4o',
      messages: [
        opening,
        { role: 'user', content: `task ${id}` },
        ...Array.from({ length: turns }, (_, turn) => tool(turn)).flat(),
      ],
    });
    for (let id = 0; id < 12; id++) memo.read(JSON.stringify(conversation(id, 3)));
    for (let id = 0; id < 12; id++) {
      const text = JSON.stringify(conversation(id, 4));
      const read = memo.read(text);
      expect(bodyOf(read)).toStrictEqual(JSON.parse(text));
      // All but the newest turn: the body before it, and the end after it.
      expect(read.kind === 'value' && read.reused).toBe(JSON.stringify(conversation(id, 3)).length);
    }
  });

  it('stays within its bounds, forgetting the least recently used', () => {
    const memo = new JsonTextMemo({ maxTexts: 3, maxChars: 200_000 });
    for (let index = 0; index < 10; index++)
      memo.read(JSON.stringify(session(3, { user: `u${index}` })).replace('gpt-4o', `m${index}`));
    expect(memo.size).toBe(3);
    expect(memo.chars).toBeLessThanOrEqual(200_000);
    memo.clear();
    expect([memo.size, memo.chars]).toEqual([0, 0]);
  });

  it('forgets a body a failed read took over: read again, it is what JSON.parse reads', () => {
    for (let shift = 0; shift < 4; shift++) {
      const memo = new JsonTextMemo({ maxDepth: 4 });
      const messages = ['m'.repeat(10_000 + shift)];
      // A body that ends with an array of numbers, and a resend that goes on from its messages (most
      // of it) with short strings, whose ends fall where the numbers were, and then nests too deep.
      const first = JSON.stringify({ messages, pad: Array(500).fill(1) });
      memo.read(first);
      const deeper = JSON.stringify({ messages: [...messages, ...Array(250).fill('a'), [[[[]]]]] });
      expect(memo.read(deeper).kind).toBe('too_deep');
      for (const text of [first, JSON.stringify({ messages: [...messages, 'b'], pad: [2] })])
        expect(bodyOf(memo.read(text))).toStrictEqual(JSON.parse(text));
    }
  });

  it('lets a converter read a resent body text as it reads the parsed one', () => {
    const text = JSON.stringify(session(7));
    fromOpenAIChat(JSON.stringify(session(6)));
    expect(fromOpenAIChat(text)).toStrictEqual(fromOpenAIChat(JSON.parse(text)));
  });
});

describe('a body read from its bytes', () => {
  const bytesOf = (value: unknown) => Buffer.from(JSON.stringify(value));

  it('reads a resent conversation from its newest turn on, as a Buffer or as plain bytes', () => {
    for (const wrap of [(bytes: Buffer) => bytes, (bytes: Buffer) => new Uint8Array(bytes)]) {
      const memo = new JsonTextMemo();
      const first = memo.read(wrap(bytesOf(session(5, { user: 'é' }))));
      const bytes = bytesOf(session(6, { user: 'é' }));
      const second = memo.read(wrap(bytes));
      expect(bodyOf(second)).toStrictEqual(JSON.parse(bytes.toString('utf8')));
      // The fifth body is taken as read whole, counted in bytes.
      const shared = bytesOf(session(5, { user: 'é' }));
      expect(second.kind === 'value' && second.reused).toBe(shared.length);
      const before = bodyOf(first).messages as unknown[];
      const after = bodyOf(second).messages as unknown[];
      expect(sameObjects(after.slice(0, before.length), before)).toBe(true);
    }
  });

  it('keeps its own copy: bytes the caller changes after a read do not pass for what was read', () => {
    const memo = new JsonTextMemo();
    const first = bytesOf(session(4, { note: 'aaaa' }));
    memo.read(first);
    // The caller reuses its buffer: what it now holds differs inside a message it sent.
    first.set(Buffer.from('yyyy'), first.indexOf('xxxx', 300));
    const next = Buffer.concat([first.subarray(0, first.length - 1), Buffer.from(',"more":1}')]);
    expect(bodyOf(memo.read(next))).toStrictEqual(JSON.parse(next.toString('utf8')));
  });

  it('names the byte where a resent body first nests too deep, past characters of several bytes', () => {
    const memo = new JsonTextMemo();
    const body = session(3, { note: 'ü😀' });
    memo.read(bytesOf(body));
    const deep = { ...body, messages: [...body.messages, { role: 'user', content: 'é' }, [[[[[[[[]]]]]]]]] };
    const text = JSON.stringify(deep);
    const small = new JsonTextMemo({ maxDepth: 6 });
    small.read(bytesOf(body));
    const read = small.read(Buffer.from(text));
    const excess = jsonTextDepthExcess(text, 6);
    expect(excess).toBeDefined();
    expect(read).toEqual({
      kind: 'too_deep',
      excess: { offset: Buffer.byteLength(text.slice(0, excess?.offset)), maxDepth: 6 },
    });
    expect(memo.read(Buffer.from(text)).kind).toBe('value');
  });

  it('keeps the bytes of conversations that open alike apart: one read from the other does not write into it', () => {
    const memo = new JsonTextMemo();
    const one = session(6, { user: 'one' });
    const first = bytesOf(one);
    memo.read(first);
    // Another conversation with the same start (the first four turns), then its own turns.
    const other = session(4, { user: 'two' });
    (other.messages as unknown[]).push(...tool(90), ...tool(91));
    const read = memo.read(bytesOf(other));
    expect(read.kind === 'value' && read.reused).toBeGreaterThan(0);
    expect(memo.size).toBe(2);
    // The first conversation's bytes are still its own: sent again, all of it is taken as read.
    const again = memo.read(first);
    expect(again.kind === 'value' && again.reused).toBe(first.length);
  });

  it('gives back the copy of a body it drops, and only that one, reading every body after as it should', () => {
    const memo = new JsonTextMemo({ maxTexts: 1 });
    const given: ArrayBuffer[] = [];
    const transfer = vi.spyOn(globalThis, 'structuredClone').mockImplementation((value, options) => {
      given.push(...((options?.transfer ?? []) as ArrayBuffer[]));
      return value;
    });
    try {
      const one = bytesOf(session(6, { user: 'one' }));
      memo.read(one);
      // Resent with a turn more: written into the same copy, nothing given back.
      const longer = bytesOf(session(7, { user: 'one' }));
      memo.read(longer);
      expect(given).toStrictEqual([]);
      // Another conversation takes the only place: the first one's copy is given back.
      const other = bytesOf({ ...session(3), model: 'another model' });
      expect(bodyOf(memo.read(other))).toStrictEqual(JSON.parse(other.toString('utf8')));
      expect(given.map((buffer) => buffer.byteLength >= longer.length)).toStrictEqual([true]);
    } finally {
      transfer.mockRestore();
    }
    const again = memo.read(bytesOf(session(8, { user: 'one' })));
    expect(bodyOf(again)).toStrictEqual(session(8, { user: 'one' }));
    expect(memo.size).toBe(1);
  });

  it('reads bytes that are not UTF-8 as their decoded text, remembering them only where offsets stay exact', () => {
    const memo = new JsonTextMemo({ minChars: 1 });
    const part = (bad: number[]) =>
      Buffer.concat([Buffer.from('{"messages":["a'), Buffer.from(bad), Buffer.from('"')]);
    // Two bytes that stand for one replacement character: byte and text offsets part, so nothing is kept.
    expect(bodyOf(memo.read(Buffer.concat([part([0xe2, 0x82]), Buffer.from(']}')])))).toStrictEqual({
      messages: ['a\uFFFD'],
    });
    expect(memo.size).toBe(0);
    // A lone bad byte is one replacement character: still a unit per byte, so it is read from later.
    const first = Buffer.concat([part([0xff]), Buffer.from(']}')]);
    memo.read(first);
    const next = Buffer.concat([part([0xff]), Buffer.from(',"b"]}')]);
    const read = memo.read(next);
    expect(bodyOf(read)).toStrictEqual({ messages: ['a\uFFFD', 'b'] });
    expect(read.kind === 'value' && read.reused).toBe(first.length);
  });

  it('reads a conversation resent a hundred times, its bytes kept with room for what each adds', () => {
    const memo = new JsonTextMemo();
    let reused = 0;
    for (let turns = 1; turns <= 100; turns++) {
      const bytes = bytesOf(session(turns));
      const read = memo.read(turns % 2 === 0 ? bytes : new Uint8Array(bytes));
      expect(bodyOf(read)).toStrictEqual(JSON.parse(bytes.toString('utf8')));
      if (read.kind === 'value' && read.reused > 0) reused++;
    }
    // The first body is under `minChars`: it is not kept, so the second is read whole too.
    expect(reused).toBe(98);
    expect(memo.size).toBe(1);
  });

  it('lets a converter read a body from its bytes as it reads the parsed one', () => {
    fromOpenAIChat(bytesOf(session(6)));
    const bytes = bytesOf(session(7));
    expect(fromOpenAIChat(bytes)).toStrictEqual(fromOpenAIChat(JSON.parse(bytes.toString('utf8'))));
  });
});

describe('commonBytePrefixLength', () => {
  it('finds where bytes part from kept bytes, at every distance, natively or a byte at a time', () => {
    const bytes = Buffer.from('ab"\\é'.repeat(12_000));
    const kept = new Uint8Array(bytes);
    for (const at of [0, 1, 6, 7, 8, 15, 16, 17, 16_383, 16_384, 16_385, 40_000, bytes.length - 1]) {
      const other = Buffer.from(bytes);
      other[at] = 0x5a;
      expect(commonBytePrefixLength(kept, other)).toBe(at);
      expect(commonBytePrefixLength(kept, new Uint8Array(other))).toBe(at);
    }
    expect(commonBytePrefixLength(kept, bytes)).toBe(bytes.length);
    expect(commonBytePrefixLength(kept, bytes.subarray(0, 100))).toBe(100);
    expect(commonBytePrefixLength(kept.subarray(0, 20_003), bytes)).toBe(20_003);
    expect(commonBytePrefixLength(new Uint8Array(), bytes)).toBe(0);
  });
});

describe('commonBytePrefixLength without a native comparison', () => {
  it('compares eight bytes at a time where both line up, telling zeros and NaN bits apart as bytes', () => {
    const zeros = new Uint8Array(64);
    // Bytes 8 to 15 read as the float -0, which equals 0 as a number.
    const negativeZero = new Uint8Array(64);
    negativeZero[15] = 0x80;
    expect(commonBytePrefixLength(zeros, negativeZero)).toBe(15);
    // NaN is not equal to itself as a number; the same bits are the same bytes.
    const nan = new Uint8Array(new Float64Array([Number.NaN, 1, Number.NaN, 2]).buffer);
    expect(commonBytePrefixLength(new Uint8Array(nan), new Uint8Array(nan))).toBe(32);
    const other = new Uint8Array(nan);
    other[27] = 7;
    expect(commonBytePrefixLength(new Uint8Array(nan), other)).toBe(27);
  });

  it('compares stretches shorter than the way to the next multiple of eight', () => {
    const at = (offset: number, bytes: number[]) => {
      const placed = new Uint8Array(bytes.length + offset).subarray(offset);
      placed.set(bytes);
      return placed;
    };
    for (let offset = 0; offset < 8; offset++)
      for (let length = 0; length < 10; length++) {
        const bytes = Array.from({ length }, (_, index) => 97 + index);
        expect(commonBytePrefixLength(at(offset, bytes), at(offset, bytes))).toBe(length);
        expect(commonBytePrefixLength(at(offset, [...bytes, 1]), at(offset, bytes))).toBe(length);
      }
  });

  it('finds where they part at every alignment of the body and of the kept bytes', () => {
    const text = new TextEncoder().encode('{"a":"é😀\\\\"}'.repeat(200));
    const placed = (offset: number) => {
      const bytes = new Uint8Array(text.length + offset).subarray(offset);
      bytes.set(text);
      return bytes;
    };
    for (let offset = 0; offset < 9; offset++)
      for (const keptAt of [0, 3, offset]) {
        const body = placed(offset);
        const kept = placed(keptAt);
        for (const at of [0, 5, 12, 13, 14, 500, 1_000, 1_001, 1_002, text.length - 1]) {
          const changed = new Uint8Array(body);
          changed[at] = 0x5a;
          expect(commonBytePrefixLength(kept, changed)).toBe(at);
        }
        expect(commonBytePrefixLength(kept, body)).toBe(text.length);
      }
  });
});

describe('commonPrefixLength', () => {
  it('finds where two texts part, at every distance from the start', () => {
    const text = 'ab"\\'.repeat(20_000);
    for (const at of [0, 1, 15, 16, 17, 16_383, 16_384, 16_385, 40_000, text.length - 1]) {
      const other = `${text.slice(0, at)}Z${text.slice(at + 1)}`;
      expect(commonPrefixLength(text, other)).toBe(at);
    }
    expect(commonPrefixLength(text, text)).toBe(text.length);
    expect(commonPrefixLength(text, text.slice(0, 100))).toBe(100);
    expect(commonPrefixLength('', text)).toBe(0);
  });
});

describe('a resent body with a message changed in the middle', () => {
  it('reads the messages after the change into the objects it read them into before', () => {
    const body = session(8);
    const before = fromOpenAIChat(JSON.stringify(body)).messages;
    // A client that clears an old tool output, as some agents do, and resends the rest unchanged.
    const edited = {
      ...body,
      messages: body.messages.map((message, index) =>
        index === 5 ? { ...message, content: '[cleared]' } : message,
      ),
    };
    const after = fromOpenAIChat(JSON.stringify(edited)).messages;
    expect(after[5]).not.toBe(before[5]);
    expect(sameObjects(after.slice(6), before.slice(6))).toBe(true);
    expect(sameObjects(after.slice(0, 5), before)).toBe(true);
  });
});

describe('a resent body holding equal messages', () => {
  it('reads each of them into an object of its own, the ones it shares with the last body too', () => {
    const again = { role: 'user', content: 'Go on.' };
    const body = session(3);
    const first = {
      ...body,
      messages: [...body.messages, again, { role: 'assistant', content: 'ok' }, again],
    };
    const second = { ...first, messages: [...first.messages, { role: 'assistant', content: 'ok' }, again] };
    fromOpenAIChat(JSON.stringify(first));
    const messages = fromOpenAIChat(JSON.stringify(second)).messages;
    const copies = messages.filter((message) => message.role === 'user' && message.content === 'Go on.');
    expect(copies).toHaveLength(3);
    expect(new Set(copies).size).toBe(3);
  });
});
