/**
 * Truth first at a small window: a step is refused only when even its smallest request (the head and
 * the newest turn, on the provider's count) leaves the reply less than it asked for. Replayed with the model's tokenizer,
 * as the proxy and the adapters run it, where the count that judges a cut is not the estimate that
 * planned it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromOpenAIChat } from '../../src/core/index.js';
import { exactCounterFor } from '../../src/tokenizers/public.js';
import { replayTranscript, type Transcript } from '../support/transcript-replay/index.js';

const FIXTURE = new URL(
  '../fixtures/trajectories/mini-swe-agent--sqlfluff__sqlfluff-1763.jsonl',
  import.meta.url,
).pathname;
const WINDOW = 4_096;
const MAX_TOKENS = 512;
/** What the window holds beside the reply: a step under it on the provider's count is not refused. */
const LIMIT = WINDOW - MAX_TOKENS;

/** A published trajectory as a transcript: one step per assistant message, no recorded usage. */
function readTrajectory(path: string): Transcript {
  const [header, ...lines] = readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { message?: unknown });
  const { messages } = fromOpenAIChat({ messages: lines.map((line) => line.message) });
  const steps = messages.flatMap((message, at) =>
    message.role === 'assistant' ? [{ at, usage: { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 } }] : [],
  );
  return { name: 'sqlfluff-1763', header: header as unknown as Transcript['header'], messages, steps };
}

describe('a replayed run at a 4,096-token window, counted by the model tokenizer', () => {
  it('refuses no step whose head and newest turn the window holds beside the reply', async () => {
    const transcript = readTrajectory(FIXTURE);
    const tokenizer = await exactCounterFor('gpt-4o');
    if (!tokenizer) throw new Error('gpt-tokenizer is not installed');
    const run = await replayTranscript({
      transcript,
      window: WINDOW,
      maxTokens: MAX_TOKENS,
      steps: 45,
      driver: { tokenizer },
    });
    const refused = run.steps.filter((step) => step.outcome === 'context_truncated');
    for (const step of refused) expect(step.smallestTokens).toBeGreaterThan(LIMIT);
    expect(run.steps.filter((step) => step.outcome === 'answered').length).toBeGreaterThan(40);
  });
});
