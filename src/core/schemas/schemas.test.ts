import { describe, expect, it } from 'vitest';
import { createEstimator, estimateTools, TOOL_BLOCK_OVERHEAD } from '../tokens/index.js';
import type { Message, ToolDefinition } from '../transcript/index.js';
import { CALLER_SOURCE, measureSchemaFloor } from './measure-schema-floor.js';
import { describeSources, formatTokens, schemaFloorLevel, schemaFloorNotice } from './schema-floor-notice.js';
import { SchemaFloorTracker } from './schema-floor-tracker.js';
import { observeTokenizerRatio } from './tokenizer-ratio.js';

const counter = createEstimator({ family: 'o200k' });

function tool(name: string, source: string | undefined, fields = 4): ToolDefinition {
  const properties: Record<string, unknown> = {};
  for (let index = 0; index < fields; index++)
    properties[`field_${index}`] = { type: 'string', description: `The ${name} field number ${index}.` };
  return {
    name,
    description: `Does ${name} things.`,
    parameters: { type: 'object', properties, required: ['field_0'] },
    ...(source === undefined ? {} : { source }),
  };
}

describe('measureSchemaFloor', () => {
  it('groups tools by source with counts and tokens, costliest first, and adds system messages', () => {
    const tools = [
      tool('list_issues', 'github', 8),
      tool('create_issue', 'github', 8),
      tool('search', 'jira', 2),
      tool('read_file', 'builtin', 1),
      tool('custom', undefined, 1),
    ];
    const messages: Message[] = [
      { role: 'system', content: 'You are a helpful agent.' },
      { role: 'user', content: 'not part of the floor' },
    ];
    const floor = measureSchemaFloor({ tools, messages, counter });
    expect(floor.sources.map((entry) => [entry.source, entry.tools])).toEqual([
      ['github', 2],
      ['jira', 1],
      // Equal costs sort by name.
      ['builtin', 1],
      [CALLER_SOURCE, 1],
    ]);
    expect(floor.sources[0]?.tokens).toBe(
      estimateTools(tools.slice(0, 2), counter).total - TOOL_BLOCK_OVERHEAD,
    );
    expect(floor.toolTokens).toBe(estimateTools(tools, counter).total);
    expect(floor.systemTokens).toBeGreaterThan(0);
    expect(floor.tokens).toBe(floor.toolTokens + floor.systemTokens);
  });

  it('scales by the tokenizer ratio', () => {
    const tools = [tool('a', 'x', 5)];
    const plain = measureSchemaFloor({ tools, counter });
    const scaled = measureSchemaFloor({ tools, counter, ratio: 2 });
    expect(scaled.toolTokens).toBe(Math.ceil(plain.toolTokens * 2));
    expect(scaled.ratio).toBe(2);
  });
});

describe('observeTokenizerRatio', () => {
  it('grows toward reported / raw, clamped to 1–4, and ignores requests with images', () => {
    expect(observeTokenizerRatio({ ratio: 1, reported: 600, raw: 1_000, hasImages: false })).toBe(1);
    expect(observeTokenizerRatio({ ratio: 1, reported: 1_300, raw: 1_000, hasImages: false })).toBe(1.3);
    expect(observeTokenizerRatio({ ratio: 1, reported: 9_000, raw: 1_000, hasImages: false })).toBe(4);
    expect(observeTokenizerRatio({ ratio: 1.5, reported: 1_100, raw: 1_000, hasImages: false })).toBe(1.5);
    expect(observeTokenizerRatio({ ratio: 1, reported: 3_000, raw: 1_000, hasImages: true })).toBe(1);
  });
});

describe('schema floor notices', () => {
  it('warns from 60% of the budget and errs above 90% of the window or at the whole budget', () => {
    expect(schemaFloorLevel({ floor: 50_000, budget: 90_000, window: 96_000 })).toBe('none');
    expect(schemaFloorLevel({ floor: 54_000, budget: 90_000, window: 96_000 })).toBe('warning');
    expect(schemaFloorLevel({ floor: 86_500, budget: 90_000, window: 96_000 })).toBe('error');
    expect(schemaFloorLevel({ floor: 70_000, budget: 70_000, window: 96_000 })).toBe('error');
  });

  it('formats the notice with the costliest sources named', () => {
    expect(formatTokens(850)).toBe('850');
    expect(formatTokens(3_400)).toBe('3.4k');
    expect(formatTokens(81_234)).toBe('81k');
    const sources = [
      { source: 'github', tools: 52, tokens: 34_000 },
      { source: 'jira', tools: 31, tokens: 22_000 },
      { source: 'slack', tools: 1, tokens: 9_000 },
      { source: 'linear', tools: 20, tokens: 8_000 },
      { source: 'builtin', tools: 4, tokens: 1_000 },
    ];
    expect(describeSources(sources, 2)).toBe('github 34k (52 tools), jira 22k (31 tools)…');
    expect(describeSources(sources)).toMatch(/slack 9k \(1 tool\), linear 8k \(20 tools\)…$/);
    const notice = schemaFloorNotice({
      floor: { tokens: 81_000, toolTokens: 81_000, systemTokens: 0, ratio: 1, sources },
      budget: 90_000,
      window: 96_000,
    });
    expect(notice?.level).toBe('warning');
    expect(notice?.message).toBe(
      'tool schemas use 81k of the 96k context window — github 34k (52 tools), jira 22k (31 tools), slack 9k (1 tool), linear 8k (20 tools)…: disable servers or filter their tools',
    );
  });
});

describe('SchemaFloorTracker', () => {
  it('announces each level once per run, escalating, and again after a reset', () => {
    const tracker = new SchemaFloorTracker();
    const tools = Array.from({ length: 40 }, (_, index) => tool(`tool_${index}`, 'big', 10));
    const floor = measureSchemaFloor({ tools, counter }).tokens;
    const check = (budget: number, window: number) =>
      tracker.check({ tools, messages: [], counter, budget, window }).notice?.level;
    expect(check(floor * 10, floor * 11)).toBeUndefined();
    expect(check(Math.ceil(floor / 0.7), floor * 3)).toBe('warning');
    expect(check(Math.ceil(floor / 0.7), floor * 3)).toBeUndefined();
    expect(check(floor - 1, floor * 3)).toBe('error');
    expect(check(Math.ceil(floor / 0.7), floor * 3)).toBeUndefined();
    expect(check(floor - 1, floor)).toBeUndefined();
    tracker.resetNotices();
    expect(check(Math.ceil(floor / 0.7), floor * 3)).toBe('warning');
  });

  it('scales the floor by the ratio it learns from usage', () => {
    const tracker = new SchemaFloorTracker();
    const tools = [tool('a', 'x', 5)];
    const before = tracker.check({ tools, messages: [], counter, budget: 100_000, window: 110_000 }).floor;
    tracker.observe({ reported: 2_000, raw: 1_000, hasImages: false });
    const after = tracker.check({ tools, messages: [], counter, budget: 100_000, window: 110_000 }).floor;
    expect(tracker.ratio).toBe(2);
    expect(after.toolTokens).toBe(before.toolTokens * 2);
  });

  it('estimates a tool definition once for every tracker counting with the same counter', () => {
    const texts: string[] = [];
    const recording = (factor: number) => ({
      name: 'recording',
      count(text: string) {
        texts.push(text);
        return factor * counter.count(text);
      },
    });
    const counting = recording(1);
    const tools = [tool('a', 'x', 5), tool('b', 'y', 2)];
    const check = (tracker: SchemaFloorTracker, forCounter = counting) =>
      tracker.check({ tools, messages: [], counter: forCounter, budget: 100_000, window: 110_000 }).floor;
    const first = check(new SchemaFloorTracker());
    expect(texts.length).toBeGreaterThan(0);
    texts.length = 0;
    expect(check(new SchemaFloorTracker())).toEqual(first);
    expect(texts).toEqual([]);
    // Another counter of the same name counts for itself.
    expect(check(new SchemaFloorTracker(), recording(2)).toolTokens).toBeGreaterThan(first.toolTokens);
  });
});
