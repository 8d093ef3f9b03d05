import { describe, expect, it } from 'vitest';
import { demoReport } from './demo-report.js';
import { demoVerdict } from './demo-verdict.js';
import { formatDemoSummary, summaryRows } from './format-demo-summary.js';
import { CHART_COLORS, renderDemoHtml } from './render-demo-html.js';
import type { DemoResult } from './run-demo.js';
import type { DemoRun } from './run-demo-session.js';

function run(name: DemoRun['name'], overrides: Partial<DemoRun>): DemoRun {
  return {
    name,
    reason: 'completed',
    turnsCompleted: 4,
    stuck: false,
    overflows: { context: 0, budget: 0, output_cap: 0 },
    recoveries: 0,
    providerCalls: 4,
    promptTokensMax: 6_000,
    promptTokensSent: 14_000,
    requests: [1, 2, 3, 4].map((turn) => ({
      turn,
      promptTokens: turn * 1_500,
      maxTokens: 2_000,
      accepted: true,
    })),
    prunes: [{ turn: 4, droppedTurns: 2, elided: 0 }],
    compactions: [{ turn: 3, removed: 4, kind: 'digest' }],
    ...overrides,
  };
}

const stuckAt = {
  turn: 3,
  promptTokens: 12_500,
  maxTokens: 9_600,
  accepted: false,
  overflow: 'budget' as const,
  window: 21_000,
};
const result: DemoResult = {
  profile: 'litellm-vllm',
  turns: 4,
  scale: 0.1,
  model: 'glm5.2',
  advertised: {
    model: 'glm5.2',
    contextLength: 9_600,
    outputCap: 9_600,
    source: { contextLength: 'claimed:/model/info', outputCap: 'claimed:/model/info' },
    figures: {
      contextLength: [{ value: 9_600, source: 'claimed:/model/info' }],
      outputCap: [{ value: 9_600, source: 'claimed:/model/info' }],
    },
  },
  limits: {
    model: 'glm5.2',
    contextLength: 21_000,
    outputCap: 9_600,
    source: { contextLength: 'probed', outputCap: 'claimed:/model/info' },
    figures: {
      contextLength: [
        { value: 21_000, source: 'probed' },
        { value: 9_600, source: 'claimed:/model/info' },
      ],
      outputCap: [{ value: 9_600, source: 'claimed:/model/info' }],
    },
    probe: { result: 'stated', status: 400, contextLength: 21_000 },
  },
  learned: [{ figure: 'context_length', value: 20_000, source: 'stated', turn: 3 }],
  realWindow: 21_000,
  reserve: 1_000,
  runs: {
    plain: run('plain', {
      reason: 'provider_error',
      stuck: true,
      turnsCompleted: 2,
      overflows: { context: 0, budget: 1, output_cap: 0 },
      requests: [
        { turn: 1, promptTokens: 4_000, maxTokens: 9_600, accepted: true },
        { turn: 2, promptTokens: 9_000, maxTokens: 9_600, accepted: true },
        stuckAt,
      ],
      prunes: [],
      compactions: [],
      stuckAt,
    }),
    spillway: run('spillway', {}),
  },
};

describe('the demo report', () => {
  it('is one self-contained page: inline SVG and CSS, no script, nothing to fetch', () => {
    const html = renderDemoHtml(result);
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script|<link|<img|<iframe|\bsrc=|\bhref=|url\((?!#dropped\))|@import/i);
    // The only URL is the SVG namespace, which is never fetched.
    expect(html.match(/https?:\/\/[^\s"']+/g)).toEqual(['http://www.w3.org/2000/svg']);
    expect(html).toContain("default-src 'none'");
  });

  it('puts the verdict before the chart, the table and the setting', () => {
    const html = renderDemoHtml(result);
    const verdict = html.indexOf('<section class="verdict">');
    expect(verdict).toBeGreaterThan(0);
    expect(html.indexOf('22,100', verdict)).toBeLessThan(html.indexOf('<svg id="chart"'));
    expect(html.indexOf('<svg id="chart"')).toBeLessThan(html.indexOf('<table>'));
    expect(html.indexOf('<table>')).toBeLessThan(html.indexOf('class="setting"'));
  });

  it('charts each request as prompt + max_tokens against both windows, with the rejection and the cuts', () => {
    const html = renderDemoHtml(result);
    const { plain, spillway } = result.runs;
    const accepted = [...plain.requests, ...spillway.requests].filter((request) => request.accepted);
    expect(html.match(/<rect class="prompt"/g)).toHaveLength(accepted.length);
    expect(html.match(/<rect class="reply-room"/g)).toHaveLength(accepted.length);
    expect(html.match(/<rect class="rejected"/g)).toHaveLength(1);
    expect(html.match(/class="failure"/g)).toHaveLength(1);
    expect(html).toContain(`<rect class="prompt" x=`);
    expect(html).toContain(`fill="${CHART_COLORS.plain}"`);
    expect(html).toContain(`fill="${CHART_COLORS.spillway}"`);
    expect(html.match(/class="limit real-window"/g)).toHaveLength(2);
    expect(html.match(/class="limit advertised"/g)).toHaveLength(2);
    expect(html.match(/class="prune"/g)).toHaveLength(1);
    expect(html.match(/class="compaction"/g)).toHaveLength(1);
    expect(html).not.toContain('class="dropped"');
  });

  it('shows the part of a prompt the server dropped, as a row and as a hatched bar', () => {
    const truncated = structuredClone(result);
    truncated.runs.plain = run('plain', {
      requests: [1, 2, 3, 4].map((turn) => ({
        turn,
        promptTokens: turn * 3_000,
        accepted: true,
        ...(turn > 2 ? { keptTokens: 4_000 } : {}),
      })),
      prunes: [],
      compactions: [],
    });
    const html = renderDemoHtml(truncated);
    expect(html.match(/<rect class="dropped"/g)).toHaveLength(2);
    const rows = summaryRows(truncated, demoVerdict(truncated));
    expect(rows.find(([label]) => label === 'prompts silently truncated')?.slice(1)).toEqual([
      '2 (up to 67% lost)',
      '0',
    ]);
  });

  it('summarizes side by side with the cost per completed turn, and keeps the documented keys', () => {
    const rows = summaryRows(result, demoVerdict(result));
    const row = (label: string) => rows.find(([name]) => name.trim() === label)?.slice(1);
    expect(row('turns completed')).toEqual(['2 / 4', '4 / 4']);
    expect(row('stuck')).toEqual(['yes (turn 3)', 'no']);
    expect(row('overflows: budget')).toEqual(['1', '0']);
    expect(row('prompt tokens sent')).toEqual(['14,000', '14,000']);
    expect(row('per completed turn')).toEqual(['7,000', '3,500']);
    const summary = formatDemoSummary(result);
    expect(summary).toContain("window 21,000 (stated by the server in answer to Spillway's probe)");
    expect(summary).toContain('learned during the session: window 20,000');
    const report = demoReport(result);
    expect(Object.keys(report)).toEqual(['profile', 'turns', 'runs', 'limits', 'learned', 'verdict']);
    expect(report.limits).toMatchObject({
      context_length: 21_000,
      source: { context_length: 'probed', output_cap: 'claimed:/model/info' },
    });
    expect(report.learned).toEqual([{ figure: 'context_length', value: 20_000, source: 'stated', turn: 3 }]);
    expect(Object.keys(report.runs)).toEqual(['plain', 'spillway']);
    expect(Object.keys(report.runs.plain)).toEqual([
      'turns_completed',
      'stuck',
      'overflows',
      'recoveries',
      'provider_calls',
      'prompt_tokens_max',
    ]);
    expect(Object.keys(report.runs.plain.overflows)).toEqual(['context', 'budget', 'output_cap']);
    expect(report.verdict.plain).toEqual({
      outcome: 'stuck',
      stuck_at_turn: 3,
      truncated_prompts: 0,
      context_lost_max: 0,
      cuts: 0,
      prompt_tokens_sent: 14_000,
      prompt_tokens_per_completed_turn: 7_000,
    });
    expect(report.verdict.spillway.outcome).toBe('completed');
    expect(report.verdict.unchanged).toBeUndefined();
  });
});
