/**
 * The matrix's baselines keep the rules they reproduce: requests stay valid (tool calls with their
 * results), cuts fall where their projects put them, truncation stays within its limits.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { approximateCounter, LangChainMirror, trimForSend } from '../../bench/langchain-trim.js';
import { headTailTruncate } from '../../eval/recovery/baselines/head-tail-truncation.js';
import { piCutPoint } from '../../eval/recovery/baselines/pi-compaction.js';
import { safeCutoff } from '../../eval/recovery/baselines/summarization-middleware.js';
import { pruneOutputs } from '../../eval/recovery/baselines/tool-output-prune.js';
import { type Message, validatePairing } from '../../src/core/index.js';

/** A system prompt, a task and `turns` tool turns whose results hold `size` characters. */
function transcript(turns: number, size = 400): Message[] {
  const messages: Message[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Fix the tests.' },
  ];
  for (let turn = 0; turn < turns; turn++) {
    messages.push({
      role: 'assistant',
      content: '',
      toolCalls: [{ id: `c${turn}`, name: 'read', arguments: '{}' }],
    });
    messages.push({ role: 'tool', toolCallId: `c${turn}`, content: `${turn} `.repeat(size / 2) });
  }
  return messages;
}

describe('LangChain trimMessages as the baselines call it', () => {
  it('keeps the head and a tail that starts at a tool call, pairing intact, for any budget', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 50, max: 5_000 }),
        async (turns, budget) => {
          const messages = transcript(turns);
          const mirror = new LangChainMirror();
          const converted = messages.map((message) => mirror.toLangChain(message));
          const kept = mirror.originals(
            await trimForSend({
              head: converted.slice(0, 2),
              history: converted.slice(2),
              maxTokens: budget,
              counter: approximateCounter,
            }),
          );
          expect(kept.slice(0, 2)).toEqual(messages.slice(0, 2));
          expect(validatePairing(kept).ok).toBe(true);
          if (kept.length > 2) expect(kept[2]?.role).toBe('assistant');
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('summarizationMiddleware cutoff', () => {
  it('keeps the newest messages and never starts them with a tool result', () => {
    const messages = transcript(20).slice(1);
    const cutoff = safeCutoff(messages, 20);
    expect(messages[cutoff]?.role).not.toBe('tool');
    expect(messages.length - cutoff).toBeGreaterThanOrEqual(20);
    expect(safeCutoff(messages.slice(0, 10), 20)).toBe(0);
  });
});

describe("pi's cut point", () => {
  it('falls on a user or assistant message, never on a tool result', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 3_000 }), (turns, keep) => {
        const messages = transcript(turns);
        const cut = piCutPoint(messages, 1, keep);
        expect(cut).toBeGreaterThanOrEqual(1);
        expect(messages[cut]?.role).not.toBe('tool');
      }),
    );
  });

  it('cuts at the first call after the point where the newest messages reach the tokens to keep', () => {
    // Outputs of about 101 tokens, calls of 2: counting back, 250 is passed at the result of turn 7.
    expect(piCutPoint(transcript(10), 1, 250)).toBe(18);
    // Less history than that: nothing to summarize.
    expect(piCutPoint(transcript(1), 1, 250)).toBe(1);
  });
});

describe("opencode's prune rule", () => {
  it('clears only outputs beyond the protected newest ones, and only when enough can be cleared', () => {
    const messages = transcript(10, 400); // each output about 100 tokens
    const ids = pruneOutputs(messages, new Set(), { protect: 310, minimum: 200 });
    expect(ids).toEqual(['c6', 'c5', 'c4', 'c3', 'c2', 'c1', 'c0']);
    expect(pruneOutputs(messages, new Set(), { protect: 300, minimum: 5_000 })).toEqual([]);
    // The walk stops at the first output already cleared: nothing before it is looked at again.
    expect(pruneOutputs(messages, new Set(['c5']), { protect: 300, minimum: 10 })).toEqual(['c7', 'c6']);
  });
});

describe("Codex's head+tail truncation", () => {
  it('leaves a short output alone and cuts a long one to its start and end within the limits', () => {
    expect(headTailTruncate('short\noutput')).toBe('short\noutput');
    const lines = Array.from({ length: 1_000 }, (_, index) => `line ${index} ${'x'.repeat(40)}`);
    const cut = headTailTruncate(lines.join('\n'));
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(10 * 1024 + 64);
    expect(cut.split('\n').length).toBeLessThanOrEqual(257);
    expect(cut.startsWith(lines[0] as string)).toBe(true);
    expect(cut.endsWith(lines.at(-1) as string)).toBe(true);
  });

  it('keeps the start and the end of one long line', () => {
    const cut = headTailTruncate(`start${'y'.repeat(50_000)}end`);
    expect(cut.startsWith('start')).toBe(true);
    expect(cut.endsWith('end')).toBe(true);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(10 * 1024 + 64);
  });
});
