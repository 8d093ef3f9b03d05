import { describe, expect, it } from 'vitest';
import { demoReport } from './demo-report.js';
import { formatDemoSummary } from './format-demo-summary.js';
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
    expect(html).not.toMatch(/<script|<link|<img|<iframe|\bsrc=|\bhref=|url\(|@import/i);
    // The only URL is the SVG namespace, which is never fetched.
    expect(html.match(/https?:\/\/[^\s"']+/g)).toEqual(['http://www.w3.org/2000/svg']);
    expect(html).toContain("default-src 'none'");
  });

  it('charts both runs against the advertised and the real window, with failures, prunes and compactions', () => {
    const html = renderDemoHtml(result);
    expect(html).toContain('<svg id="chart"');
    expect(html).toContain(`class="series plain" fill="none" stroke="${CHART_COLORS.plain}"`);
    expect(html).toContain(`class="series spillway" fill="none" stroke="${CHART_COLORS.spillway}"`);
    expect(html).toContain('real window 21,000');
    expect(html).toContain('advertised 9,600');
    expect(html).toContain('plain&#39;s ceiling 11,400');
    expect(html).toContain('plain: rejected (budget)');
    expect(html).toContain('class="prune"');
    expect(html).toContain('class="compaction"');
    expect(html).toContain(
      'stuck at turn 3: prompt 12,500 + max_tokens 9,600 = 22,100 &#62; the 21,000-token window (budget)',
    );
  });

  it('summarizes side by side, and reports exactly the documented keys', () => {
    const summary = formatDemoSummary(result);
    expect(summary).toMatch(/turns completed\s+2 \/ 4\s+4 \/ 4/);
    expect(summary).toMatch(/stuck\s+yes \(turn 3\)\s+no/);
    expect(summary).toMatch(/overflows: budget\s+1\s+0/);
    expect(summary).toContain("window 21,000 (stated by the server in answer to Spillway's probe)");
    expect(summary).toContain('learned during the session: window 20,000');
    const report = demoReport(result);
    expect(Object.keys(report)).toEqual(['profile', 'turns', 'runs', 'limits', 'learned']);
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
  });
});
