import { describe, expect, it } from 'vitest';
import { createEstimator, EstimateCache } from '../tokens/index.js';
import { contentText, type Message, type ToolMessage, validatePairing } from '../transcript/index.js';
import { applyCompression } from './apply-compression.js';
import { compressToolOutputs } from './compress-tool-outputs.js';
import { createCompressionState } from './compression-state.js';
import { renderLevel } from './render-level.js';

const cache = new EstimateCache(createEstimator({ family: 'o200k' }));
const count = (text: string) => cache.counter.count(text);
const estimateOf = (message: Message) => cache.message(message).total;
const total = (messages: readonly Message[]) =>
  messages.reduce((sum, message) => sum + estimateOf(message), 0);

function output(lines: number, tag: string): string {
  return Array.from(
    { length: lines },
    (_, line) => `${tag} ${line + 1}: export const value${line} = compute(${line});`,
  ).join('\n');
}

function call(id: string, name: string, args: Record<string, unknown>, result: string): Message[] {
  return [
    { role: 'assistant', content: '', toolCalls: [{ id, name, arguments: JSON.stringify(args) }] },
    { role: 'tool', toolCallId: id, content: result },
  ];
}

function transcript(): Message[] {
  return [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Fix the failing test.' },
    ...call('c1', 'read_file', { path: 'src/a.ts' }, output(120, 'a')),
    ...call('c2', 'read_file', { path: 'src/b.ts' }, output(120, 'b')),
    ...call('c3', 'run', { command: 'npm test' }, output(120, 'run')),
    ...call('c4', 'read_file', { path: 'src/c.ts' }, output(120, 'c')),
  ];
}

function compress(messages: Message[], pressure: number, state = createCompressionState()) {
  const estimate = total(messages);
  return compressToolOutputs({
    messages,
    state,
    budget: Math.ceil(estimate / pressure),
    estimate,
    estimateOf,
    count,
  });
}

const toolText = (messages: readonly Message[], id: string) =>
  contentText((messages.find((m) => m.role === 'tool' && m.toolCallId === id) as ToolMessage).content);

describe('compressToolOutputs', () => {
  it('leaves everything alone below half the budget', () => {
    const messages = transcript();
    const result = compress(messages, 0.49);
    expect(result.escalated).toEqual([]);
    expect(result.messages).toBe(messages);
  });

  it('truncates the oldest results first and never the newest tool run', () => {
    const messages = transcript();
    const result = compress(messages, 0.6);
    expect(result.escalated[0]).toBe('c1');
    expect(result.escalated).not.toContain('c4');
    expect(result.state.entries.c1?.level).toBe('truncated');
    const text = toolText(result.messages, 'c1');
    expect(text.split('\n')).toHaveLength(12 + 1 + 6);
    expect(text).toMatch(/^a 1: /);
    expect(text).toMatch(/\[… 102 lines cut \([\d,]+ tokens\) · recall #1\]/);
    expect(text).toMatch(/a 120: export const value119 = compute\(119\);$/);
    expect(toolText(result.messages, 'c4')).toBe(output(120, 'c'));
    expect(validatePairing(result.messages).ok).toBe(true);
  });

  it('outlines from 0.8 and elides from 0.9, with a stub naming the tool, the path and the size', () => {
    const outlined = compress(transcript(), 0.85);
    expect(outlined.state.entries.c1?.level).toBe('outline');
    expect(toolText(outlined.messages, 'c1').split('\n')).toHaveLength(3);

    const elided = compress(transcript(), 0.95);
    expect(elided.state.entries.c1?.level).toBe('elided');
    expect(toolText(elided.messages, 'c1')).toMatch(/^\[elided #1: read_file src\/a\.ts, [\d,]+ tokens\]$/);
    const original = transcript()[3] as Message;
    expect(toolText(elided.messages, 'c1')).toContain(
      `${estimateOf(original).toLocaleString('en-US')} tokens`,
    );
  });

  it('stubs a read result that a later edit of the same path made stale before anything older', () => {
    const messages: Message[] = [
      { role: 'system', content: 'agent' },
      { role: 'user', content: 'go' },
      ...call('old', 'run', { command: 'ls' }, output(120, 'ls')),
      ...call('read', 'read_file', { path: 'src/app.ts' }, output(120, 'app')),
      ...call('edit', 'edit_file', { path: 'src/app.ts', patch: 'x' }, 'ok'),
      ...call('last', 'run', { command: 'npm test' }, output(50, 'test')),
    ];
    const result = compress(messages, 0.52);
    expect(result.state.entries.read?.level).toBe('elided');
    expect(toolText(result.messages, 'read')).toMatch(/outdated: src\/app\.ts was edited later\]$/);
    expect(result.escalated[0]).toBe('read');
  });

  it('forces every eligible result to a stub outside the newest run when asked', () => {
    const messages = transcript();
    const result = compressToolOutputs({
      messages,
      state: createCompressionState(),
      budget: 1_000_000,
      estimate: 10,
      estimateOf,
      count,
      force: 'elided',
    });
    expect(result.escalated).toEqual(['c1', 'c2', 'c3']);
    for (const id of ['c1', 'c2', 'c3']) expect(result.state.entries[id]?.level).toBe('elided');
    expect(result.state.entries.c4).toBeUndefined();
  });

  it('never lowers a level and re-renders the stored text byte for byte', () => {
    const messages = transcript();
    const first = compress(messages, 0.95);
    const stubC1 = toolText(first.messages, 'c1');
    const lower = compressToolOutputs({
      messages,
      state: first.state,
      budget: 1_000_000,
      estimate: 10,
      estimateOf,
      count,
    });
    expect(lower.escalated).toEqual([]);
    expect(toolText(lower.messages, 'c1')).toBe(stubC1);
    expect(applyCompression({ messages, state: first.state })).toEqual(first.messages);
  });

  it('keeps recall ids stable and unique across passes', () => {
    const messages = transcript();
    const first = compress(messages, 0.6);
    const second = compress(messages, 0.99, first.state);
    const ids = Object.values(second.state.entries).map((entry) => entry.recallId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(second.state.entries.c1?.recallId).toBe(first.state.entries.c1?.recallId);
    expect(second.state.nextRecallId).toBe(Math.max(...ids) + 1);
  });

  it('changes nothing when compressing would break the anchor and push a fitting request over budget', () => {
    const messages = transcript();
    const raw = total(messages);
    // The provider counted far fewer tokens than the estimator: anchored, the request fits.
    const result = compressToolOutputs({
      messages,
      state: createCompressionState(),
      budget: Math.ceil(raw / 5),
      estimate: Math.ceil(raw / 6),
      estimateOf,
      count,
    });
    expect(result.escalated).toEqual([]);
    expect(result.estimate).toBe(Math.ceil(raw / 6));
  });
});

describe('renderLevel', () => {
  it('does not truncate an output that is already short', () => {
    const input = { text: 'one\ntwo\nthree', tokens: 3, recallId: 1, description: 'run ls', count };
    expect(renderLevel('truncated', input)).toBeUndefined();
    expect(renderLevel('outline', input)).toBeUndefined();
    expect(renderLevel('elided', input)).toBe('[elided #1: run ls, 3 tokens]');
  });

  it('cuts long lines when there are too few lines to drop', () => {
    const input = {
      text: `{"data":"${'x'.repeat(5_000)}"}`,
      tokens: 700,
      recallId: 7,
      description: 'fetch',
      count,
    };
    const text = renderLevel('truncated', input) as string;
    expect(text.length).toBeLessThan(400);
    expect(text).toMatch(/characters cut from long lines · recall #7\]$/);
  });
});
