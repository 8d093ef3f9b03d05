import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const example = fileURLToPath(new URL('../../examples/long-session.json', import.meta.url));
const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

function spillway(args: string[], input?: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(tsx, ['src/cli/bin.ts', ...args], { cwd: root, input, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('spillway estimate', () => {
  it('prints tokens, messages, turns, head size and the breakdown by class', () => {
    const { status, stdout } = spillway(['estimate', example]);
    expect(status).toBe(0);
    const output = JSON.parse(stdout);
    expect(Object.keys(output)).toEqual(['tokens', 'messages', 'turns', 'head_messages', 'by_class']);
    expect(output).toMatchObject({ messages: 83, turns: 40, head_messages: 2 });
    expect(output.by_class.prose + output.by_class.dense + output.by_class.overhead).toBe(output.tokens);
  });

  it('reads standard input and detects an Anthropic request', () => {
    const body = JSON.stringify({
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      system: 'be brief',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const output = JSON.parse(spillway(['estimate', '-'], body).stdout);
    expect(output).toMatchObject({ messages: 2, turns: 0, head_messages: 2 });
  });
});

describe('spillway estimate --exact', () => {
  it('counts with the model’s own tokenizer and says which counter counted', () => {
    const estimated = JSON.parse(spillway(['estimate', example]).stdout);
    const { status, stdout } = spillway(['estimate', example, '--exact']);
    expect(status).toBe(0);
    const exact = JSON.parse(stdout);
    expect(exact.counter).toEqual({ name: 'gpt-tokenizer/o200k', exact: true });
    expect(exact.by_class.prose + exact.by_class.dense + exact.by_class.overhead).toBe(exact.tokens);
    expect(exact.tokens).toBeLessThan(estimated.tokens);
  });

  it('names the estimator when the model has no exact tokenizer', () => {
    const body = JSON.stringify({ model: 'glm-4.6', messages: [{ role: 'user', content: 'hi' }] });
    const output = JSON.parse(spillway(['estimate', '-', '--exact'], body).stdout);
    expect(output.counter).toEqual({ name: 'spillway-estimator/conservative', exact: false });
  });
});

describe('spillway fit', () => {
  it('fits the example into a 16k window, compressing old tool results and pruning when that is not enough', () => {
    const { status, stdout } = spillway(['fit', example, '--context-length', '16384']);
    expect(status).toBe(0);
    const output = JSON.parse(stdout);
    expect(output.compressed_tool_results).toBeGreaterThan(0);
    const tight = JSON.parse(spillway(['fit', example, '--context-length', '6000']).stdout);
    expect(tight.pruned).toBe(true);
    expect(tight.dropped_turns).toBeGreaterThan(0);
    expect(output.estimate).toBeLessThanOrEqual(output.budget);
    const input = JSON.parse(readFileSync(example, 'utf8'));
    expect(output.request.messages.slice(0, 2)).toEqual(input.messages.slice(0, 2));
    expect(output.request.messages.at(-1)).toEqual(input.messages.at(-1));
    expect(output.request.tools).toEqual(input.tools);
    // No reply cap asked for and none known: the provider's default takes the room the prompt leaves.
    expect(output.request.max_tokens).toBeUndefined();
    const capped = JSON.parse(
      spillway(['fit', example, '--context-length', '16384', '--output-cap', '4096']).stdout,
    );
    // A model cap of 4,096: the reply gets the room the cut prompt leaves, up to that cap, and at
    // least the reserve the budget kept for it.
    expect(capped.request.max_tokens).toBeLessThanOrEqual(4_096);
    expect(capped.request.max_tokens).toBeGreaterThanOrEqual(capped.reserve);
    expect(capped.estimate + capped.request.max_tokens).toBeLessThanOrEqual(capped.window);
  });

  it('shortens an oversized newest turn’s tool results rather than refusing', () => {
    // At 700 tokens even o200k's count of the head, the marker and the newest turn is over the budget.
    const { status, stdout } = spillway(['fit', example, '--context-length', '700', '--summary']);
    expect(status).toBe(0);
    const summary = JSON.parse(stdout);
    expect(summary.shortened_tool_results).toBeGreaterThan(0);
    expect(summary.cut).toMatch(/shorten/);
    expect(summary.estimate).toBeLessThanOrEqual(summary.budget);
  });

  it('counts with the model’s tokenizer: a newest turn the estimate alone calls too large is kept whole', () => {
    // At 1,300 tokens the estimate of the head, the marker naming what was dropped and the newest
    // turn is over the budget; o200k's count is not.
    const { status, stdout } = spillway(['fit', example, '--context-length', '1300', '--summary']);
    expect(status).toBe(0);
    const summary = JSON.parse(stdout);
    expect(summary).toMatchObject({ count: 'exact', verdict: 'fits', shortened_tool_results: 0 });
    expect(summary.estimate).toBeLessThanOrEqual(summary.budget);
  });

  it('exits 3 with context_truncated when even the newest user message cannot fit', () => {
    const body = JSON.stringify({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Please review this: '.repeat(2_000) },
      ],
    });
    const { status, stderr, stdout } = spillway(['fit', '-', '--context-length', '1200'], body);
    expect(status).toBe(3);
    expect(stdout).toBe('');
    const error = JSON.parse(stderr).error;
    expect(error.code).toBe('context_truncated');
    expect(error.message).toMatch(/newest turn/);
    expect(error).toMatchObject({ window: 1200 });
  });

  it('exits 2 with invalid_transcript for malformed JSON and orphaned tool results', () => {
    const malformed = spillway(['fit', '-', '--context-length', '8000'], '{"messages": [');
    expect(malformed.status).toBe(2);
    expect(JSON.parse(malformed.stderr).error.code).toBe('invalid_transcript');
    const orphan = JSON.stringify({
      messages: [
        { role: 'user', content: 'go' },
        { role: 'tool', tool_call_id: 'call_7', content: 'x' },
      ],
    });
    const result = spillway(['fit', '-', '--context-length', '8000'], orphan);
    expect(result.status).toBe(2);
    expect(JSON.parse(result.stderr).error.message).toMatch(
      /call_7 \(message 1\) answers no earlier tool call/,
    );
  });

  it('requires --context-length and rejects an unknown flag in one line naming the flag it meant', () => {
    expect(spillway(['fit', example]).status).toBe(2);
    const unknown = spillway(['fit', example, '--context-lenght', '10']);
    expect(unknown.status).toBe(2);
    expect(JSON.parse(unknown.stderr).error.message).toBe(
      'unknown option --context-lenght; did you mean --context-length? (spillway fit --help shows its options)',
    );
  });

  it('forces the format with --format', () => {
    const body = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] });
    const output = JSON.parse(
      spillway(['fit', '-', '--context-length', '8000', '--format', 'anthropic'], body).stdout,
    );
    expect(output.request).toEqual({
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: expect.any(Number),
    });
  });
});
