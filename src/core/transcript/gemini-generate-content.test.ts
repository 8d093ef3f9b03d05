import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromGemini, GEMINI_CALL_ID_PREFIX, toGemini } from './gemini-generate-content.js';
import { readRequest, writeRequest } from './read-request.js';
import { splitTurns } from './split-turns.js';
import type { ToolMessage } from './types.js';
import { validatePairing } from './validate-pairing.js';

/** A body shaped as Gemini CLI sends it: call ids of its own on the responses only. */
const body = {
  systemInstruction: { role: 'user', parts: [{ text: 'You are an interactive CLI agent.' }] },
  contents: [
    { role: 'user', parts: [{ text: 'Read notes-1.txt and notes-2.txt.' }] },
    {
      role: 'model',
      parts: [
        { text: 'Reading both.' },
        {
          functionCall: { name: 'read_file', args: { file_path: '/w/notes-1.txt' } },
          thoughtSignature: 'sig',
        },
        { functionCall: { name: 'read_file', args: { file_path: '/w/notes-2.txt' } } },
      ],
    },
    {
      role: 'user',
      parts: [
        { functionResponse: { id: 'read_file-1-a', name: 'read_file', response: { output: 'one\ntwo' } } },
        { functionResponse: { id: 'read_file-1-b', name: 'read_file', response: { output: 'three' } } },
      ],
    },
    { role: 'model', parts: [{ text: 'Thinking…', thought: true }, { text: 'Done.' }] },
  ],
  tools: [
    {
      functionDeclarations: [
        { name: 'read_file', description: 'Reads a file.', parametersJsonSchema: { type: 'object' } },
      ],
    },
    { googleSearch: {} },
  ],
  generationConfig: { temperature: 0, maxOutputTokens: 8_192, thinkingConfig: { includeThoughts: true } },
};

describe('fromGemini and toGemini', () => {
  it('reads the system instruction as head, calls and their responses paired in one turn, and the cap', () => {
    const request = fromGemini(body, { model: 'models/gemini-2.5-pro' });
    expect(request.model).toBe('gemini-2.5-pro');
    expect(request.maxTokens).toBe(8_192);
    expect(request.messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
    ]);
    expect(validatePairing(request.messages).ok).toBe(true);
    const calls = request.messages[2]?.role === 'assistant' ? (request.messages[2].toolCalls ?? []) : [];
    const answers = request.messages.slice(3, 5) as ToolMessage[];
    expect(answers.map((answer) => answer.toolCallId)).toEqual(calls.map((call) => call.id));
    expect(calls[0]?.id.startsWith(GEMINI_CALL_ID_PREFIX)).toBe(true);
    expect(answers.map((answer) => answer.content)).toEqual(['one\ntwo', 'three']);
    const segmentation = splitTurns(request.messages);
    expect(segmentation.head.end).toBe(2);
    expect(segmentation.turns).toEqual([
      { start: 2, end: 5 },
      { start: 5, end: 6 },
    ]);
    expect(request.tools.map((tool) => tool.name)).toEqual(['read_file']);
  });

  it('writes an unchanged request back as it came, without the ids it made up', () => {
    expect(toGemini(fromGemini(body))).toEqual(body);
    expect(writeRequest(readRequest(body, { format: 'gemini', model: 'g' }))).toEqual(body);
  });

  it('writes a lowered cap into generationConfig and a shortened result as its output', () => {
    const request = fromGemini(body);
    const answer = request.messages[3] as ToolMessage;
    const cut = {
      ...request,
      maxTokens: 1_000,
      messages: request.messages.map((message) =>
        message === answer ? { ...answer, content: '[elided: 2 lines of /w/notes-1.txt]' } : message,
      ),
    };
    const written = toGemini(cut);
    expect(written.generationConfig).toEqual({
      temperature: 0,
      maxOutputTokens: 1_000,
      thinkingConfig: { includeThoughts: true },
    });
    expect(written.contents[2]?.parts[0]).toEqual({
      functionResponse: {
        id: 'read_file-1-a',
        name: 'read_file',
        response: { output: '[elided: 2 lines of /w/notes-1.txt]' },
      },
    });
  });

  it('keeps the user’s text of a turn that also answers calls after the answers, in the same content', () => {
    const mixed = {
      contents: [
        { role: 'user', parts: [{ text: 'go' }] },
        { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'ls', args: {} } }] },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'c1', name: 'ls', response: { files: ['a'] } } },
            { text: 'and then?' },
          ],
        },
      ],
    };
    const request = fromGemini(mixed);
    expect(request.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect((request.messages[2] as ToolMessage).content).toBe('{"files":["a"]}');
    expect(toGemini(request)).toEqual(mixed);
  });

  it('refuses what is no generateContent body, naming what to fix', () => {
    expect(() => fromGemini({ messages: [] })).toThrow(/"contents" array/);
    expect(() => fromGemini({ contents: [{ role: 'system', parts: [] }] })).toThrow(/contents\[0\]\.role/);
    expect(() => fromGemini({ contents: [{ role: 'model', parts: [{ functionCall: {} }] }] })).toThrow(
      /no "name"/,
    );
    expect(() => fromGemini({ contents: [], generationConfig: { maxOutputTokens: 0 } })).toThrow(
      /maxOutputTokens/,
    );
  });

  it('pairs every response with a call of its turn, and round-trips, for any turns of calls and answers', () => {
    const turn = fc.record({
      names: fc.array(fc.constantFrom('read_file', 'ls', 'grep'), { minLength: 1, maxLength: 3 }),
      withIds: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(turn, { minLength: 1, maxLength: 5 }), (turns) => {
        const contents: unknown[] = [{ role: 'user', parts: [{ text: 'task' }] }];
        turns.forEach((spec, index) => {
          contents.push({
            role: 'model',
            parts: spec.names.map((name, position) => ({
              functionCall: { ...(spec.withIds ? { id: `c${index}-${position}` } : {}), name, args: {} },
            })),
          });
          contents.push({
            role: 'user',
            parts: spec.names.map((name, position) => ({
              functionResponse: {
                id: `r${index}-${position}`,
                name,
                response: { output: `${name} ${position}` },
              },
            })),
          });
        });
        const wire = { contents };
        const request = fromGemini(wire);
        expect(validatePairing(request.messages).ok).toBe(true);
        expect(toGemini(request)).toEqual(wire);
      }),
    );
  });
});
