/** Transcripts and summarizers for compaction and recovery tests. */
import type { Summarizer } from '../../src/core/compact/index.js';
import type { ChatRequest, Message, TokenCounter } from '../../src/core/index.js';

/**
 * A fixed counter for tests (one token per four characters, rounded up): compaction and recovery
 * tests reason about sizes, and must not move when the estimator's weights are re-fitted.
 */
export const charCounter: TokenCounter = {
  name: 'test/chars-per-4',
  count: (text) => Math.ceil(text.length / 4),
};

/** A tool output of about `lines` lines of source. */
export function sourceOutput(lines: number, tag: string): string {
  return Array.from(
    { length: lines },
    (_, line) =>
      `${String(line + 1).padStart(4)}\texport function ${tag}${line}(input: number) { return input * ${line}; }`,
  ).join('\n');
}

/** One turn: an assistant call of `name` on `path` and its result. */
export function toolTurn(id: string, name: string, path: string, result: string, text = ''): Message[] {
  return [
    { role: 'assistant', content: text, toolCalls: [{ id, name, arguments: JSON.stringify({ path }) }] },
    { role: 'tool', toolCallId: id, content: result },
  ];
}

/** A coding session: system prompt, task, `turns` read/run turns of `lines` lines each, a follow-up. */
export function codingSession({ turns, lines = 60 }: { turns: number; lines?: number }): Message[] {
  const messages: Message[] = [
    { role: 'system', content: 'You are a coding agent. Be precise.' },
    {
      role: 'user',
      content: 'Fix the failing test in src/parser/parse-config.ts; you must keep the public API.',
    },
  ];
  for (let turn = 0; turn < turns; turn++) {
    const path = `src/module${turn}/file${turn}.ts`;
    messages.push(
      ...toolTurn(
        `call_${turn}`,
        turn % 3 === 2 ? 'run' : 'read_file',
        path,
        sourceOutput(lines, `fn${turn}_`),
        `Looking at ${path}.`,
      ),
    );
  }
  messages.push({ role: 'user', content: 'Also make sure `parseConfig` still accepts YAML.' });
  return messages;
}

/** A summarizer that answers every request with `text` and records the requests. */
export function recordingSummarizer(
  text = 'Goal: fix the parser test. Accomplished: read the modules.',
): Summarizer & {
  requests: ChatRequest[];
} {
  const requests: ChatRequest[] = [];
  const summarize: Summarizer = async (request) => {
    requests.push(request);
    return { text, usage: { promptTokens: 100, completionTokens: 20 } };
  };
  return Object.assign(summarize, { requests });
}

/** An error shaped like a provider rejection (status and body), as `classifyOverflow` reads it. */
export function providerRejection(message: string, status = 400): Error {
  return Object.assign(new Error(`${status}: ${message}`), {
    status,
    body: JSON.stringify({
      error: { message, type: 'invalid_request_error', code: 'context_length_exceeded' },
    }),
  });
}
