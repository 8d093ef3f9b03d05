import { describe, expect, it } from 'vitest';
import {
  charCounter,
  codingSession,
  providerRejection,
  recordingSummarizer,
} from '../../../test/support/compaction-fixtures.js';
import { EstimateCache } from '../tokens/index.js';
import { contentText, type Message, validatePairing } from '../transcript/index.js';
import { compactTranscript } from './compact-transcript.js';
import type { Summarizer } from './summarizer.js';
import { SUMMARY_REQUEST_MARKER } from './summary-prompt.js';

const cache = new EstimateCache(charCounter);
const estimate = (request: { messages: readonly Message[]; tools: readonly unknown[] }) =>
  cache.request(request as Parameters<typeof cache.request>[0]).total;

function everyMessageAccountedFor(
  original: readonly Message[],
  kept: readonly Message[],
  removed: readonly Message[],
) {
  for (const message of original) expect(kept.includes(message) || removed.includes(message)).toBe(true);
}

describe('compactTranscript with a summarizer', () => {
  it('replaces the older turns by one user-role summary that fits, keeping head and newest turns verbatim', async () => {
    const messages = codingSession({ turns: 12, lines: 40 });
    const summarize = recordingSummarizer();
    const result = await compactTranscript({ messages, summarize, window: 16_384, estimate });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.kind).toBe('llm');
    expect(result.messages.slice(0, 2)).toEqual(messages.slice(0, 2));
    expect(result.messages[2]).toBe(result.summary);
    expect(result.summary.role).toBe('user');
    expect(contentText(result.summary.content)).toMatch(
      /^\[compacted #1: \d+ earlier messages summarized; recall #1/,
    );
    expect(result.messages.at(-1)).toBe(messages.at(-1));
    expect(result.estimate).toBeLessThanOrEqual(result.budget);
    expect(result.estimate).toBeLessThan(result.before);
    expect(validatePairing(result.messages).ok).toBe(true);
    everyMessageAccountedFor(messages, result.messages, result.removed);
    expect(result.recall).toEqual([
      {
        id: '1',
        kind: 'compacted',
        label: `${result.removed.length} messages summarized`,
        messages: result.removed,
      },
    ]);
  });

  it('sends a structured summary request with its own output cap and a prompt bounded by the window minus that cap', async () => {
    const summarize = recordingSummarizer();
    await compactTranscript({ messages: codingSession({ turns: 12 }), summarize, window: 16_384, estimate });
    const [request] = summarize.requests;
    expect(request?.tools).toEqual([]);
    expect(request?.maxTokens).toBe(8_192); // min(16,384, half of the window)
    const prompt = contentText(request?.messages.at(-1)?.content ?? '');
    expect(prompt.startsWith(SUMMARY_REQUEST_MARKER)).toBe(true);
    for (const section of [
      'Goal',
      'Instructions',
      'Discoveries',
      'Accomplished',
      'Relevant files',
      'Open work',
    ])
      expect(prompt).toContain(section);
    expect(prompt).toContain('Preserve every file path, identifier and decision exactly');
    expect(prompt).toMatch(/<<<\n\[user\]|<<<\n\[assistant\]/);
    expect(estimate({ messages: request?.messages ?? [], tools: [] })).toBeLessThanOrEqual(16_384 - 8_192);
  });

  it('appends the file paths, identifiers and requests the summary dropped', async () => {
    const messages = codingSession({ turns: 12 });
    const result = await compactTranscript({
      messages,
      summarize: recordingSummarizer('Goal: fix a test.'),
      window: 16_384,
      estimate,
      keepTurns: 1,
    });
    expect(result.ok).toBe(true);
    const text = contentText(result.summary?.content ?? '');
    expect(text).toContain('Also keep');
    expect(text).toContain('src/module0/file0.ts');
    expect(result.missingFacts).toContain('src/module1/file1.ts');
    // The task stays verbatim in the head, so its path is not a fact the summary must carry.
    expect(result.missingFacts).not.toContain('src/parser/parse-config.ts');
  });

  it('shrinks an overflowing summary request by the overshoot and keeps what it cut verbatim after the summary', async () => {
    const messages = codingSession({ turns: 14, lines: 20 });
    const sent: number[] = [];
    let calls = 0;
    const summarize: Summarizer = async (request) => {
      sent.push(estimate({ messages: request.messages, tools: [] }));
      calls++;
      if (calls === 1)
        throw providerRejection(
          "This model's maximum context length is 8192 tokens. However, your messages resulted in 9500 tokens. Please reduce the length of the messages.",
        );
      return { text: 'Goal: fix the test.' };
    };
    const result = await compactTranscript({
      messages,
      summarize,
      window: 32_768,
      budget: 30_000,
      estimate,
      keepTurns: 1,
    });
    expect(calls).toBe(2);
    expect(sent[1]).toBeLessThanOrEqual(Math.floor(((sent[0] as number) - (9_500 - 8_192)) * 0.9));
    expect(result.learnedWindow).toBe(8_192);
    expect(result.steps.join('\n')).toMatch(/overflowed/);
    const summaryIndex = result.messages?.indexOf(result.summary as Message) ?? -1;
    const verbatim = result.messages?.slice(summaryIndex + 1, -3) ?? [];
    expect(verbatim.length).toBeGreaterThan(0);
    for (const message of verbatim) expect(messages).toContain(message);
    everyMessageAccountedFor(messages, result.messages ?? [], result.removed ?? []);
    expect(validatePairing(result.messages ?? []).ok).toBe(true);
  });

  it('rolls a head five times the window up in bounded chunks, each merged with the running summary', async () => {
    const messages = codingSession({ turns: 60, lines: 40 });
    const window = 8_192;
    const head = estimate({ messages: messages.slice(0, -3), tools: [] });
    expect(head).toBeGreaterThan(5 * window);
    let part = 0;
    const seen: string[] = [];
    const summarize: Summarizer = async (request) => {
      part++;
      seen.push(contentText(request.messages.at(-1)?.content ?? ''));
      expect(estimate({ messages: request.messages, tools: [] })).toBeLessThanOrEqual(window - 4_096);
      return { text: `Summary after part ${part}: worked through src/module${part}.` };
    };
    const result = await compactTranscript({ messages, summarize, window, estimate });
    expect(result.kind).toBe('rolling');
    expect(part).toBeGreaterThan(1);
    expect(part).toBeLessThanOrEqual(8);
    for (let index = 1; index < seen.length; index++)
      expect(seen[index]).toContain(`Summary after part ${index}:`);
    everyMessageAccountedFor(messages, result.messages ?? [], result.removed ?? []);
    expect(result.ok).toBe(true);
  });

  it('gives up after six overflows in a row, and at once on an error that is not an overflow', async () => {
    let calls = 0;
    const overflowing: Summarizer = async () => {
      calls++;
      throw providerRejection('prompt is too long: 300000 tokens > 200000 maximum');
    };
    const failed = await compactTranscript({
      messages: codingSession({ turns: 12 }),
      summarize: overflowing,
      window: 16_384,
      estimate,
    });
    expect(failed.ok).toBe(false);
    expect(failed.ok ? undefined : failed.code).toBe('summarizer_failed');
    expect(calls).toBeLessThanOrEqual(6);

    let attempts = 0;
    const broken: Summarizer = async () => {
      attempts++;
      throw Object.assign(new Error('503 Service Unavailable'), { status: 503 });
    };
    const down = await compactTranscript({
      messages: codingSession({ turns: 12 }),
      summarize: broken,
      window: 16_384,
      estimate,
    });
    expect(down.ok ? undefined : down.code).toBe('summarizer_failed');
    expect(attempts).toBe(1);
  });

  it('rethrows when the caller aborts', async () => {
    const controller = new AbortController();
    const summarize: Summarizer = async () => {
      controller.abort();
      throw new Error('aborted');
    };
    await expect(
      compactTranscript({
        messages: codingSession({ turns: 8 }),
        summarize,
        signal: controller.signal,
        estimate,
      }),
    ).rejects.toThrow('aborted');
  });
});

describe('compactTranscript without a summarizer (fallback)', () => {
  it('keeps user messages verbatim and writes each tool call as one line', async () => {
    const messages = codingSession({ turns: 10 });
    const result = await compactTranscript({ messages, window: 16_384, estimate, keepTurns: 1 });
    expect(result.ok).toBe(true);
    expect(result.kind).toBe('fallback');
    const text = contentText(result.summary?.content ?? '');
    expect(text).toMatch(/^\[compacted #1: \d+ earlier messages condensed without a model/);
    expect(text).toContain('[tool read_file(src/module0/file0.ts) ran, result elided]');
    expect(text).toContain('assistant: Looking at src/module0/file0.ts.');
    everyMessageAccountedFor(messages, result.messages ?? [], result.removed ?? []);
  });

  it('shrinks the digest until it fits a tight budget', async () => {
    const messages = codingSession({ turns: 40, lines: 10 });
    const loose = await compactTranscript({ messages, window: 64_000, estimate, keepTurns: 1 });
    const tight = await compactTranscript({ messages, window: 4_096, budget: 700, estimate, keepTurns: 1 });
    expect(tight.ok).toBe(true);
    expect(tight.estimate).toBeLessThanOrEqual(700);
    expect(contentText(tight.summary?.content ?? '').length).toBeLessThan(
      contentText(loose.summary?.content ?? '').length,
    );
  });

  it('reports nothing to compact when only the newest turn follows the head', async () => {
    const result = await compactTranscript({ messages: codingSession({ turns: 1 }), estimate });
    expect(result.ok).toBe(false);
    expect(result.ok ? undefined : result.code).toBe('nothing_to_compact');
  });
});
