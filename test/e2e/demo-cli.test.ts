/**
 * `spillway demo`, spawned as `npm start` runs it (here through tsx, so no build is needed): the
 * plain run gets stuck where the advertised cap makes the prompt impossible, the Spillway run
 * completes; against Ollama the plain run completes only because the server silently drops the
 * front of its prompts; against a large window both runs are the same, and the verdict says why.
 * No network beyond loopback, no API key.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { runProcess } from '../support/run-process.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs the command without an API key in the environment. */
function spillway(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env };
  for (const key of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'SPILLWAY_API_KEY']) delete env[key];
  return runProcess(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', ...args], { cwd: root, env });
}

const RUN_KEYS = [
  'turns_completed',
  'stuck',
  'overflows',
  'recoveries',
  'provider_calls',
  'prompt_tokens_max',
];

describe('spillway demo', () => {
  it.concurrent('reports the default run as JSON: the plain run stuck past 11,400 prompt tokens, Spillway complete', async ({
    expect,
  }) => {
    const { status, stdout, stderr } = await spillway(['demo', '--json']);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const report = JSON.parse(stdout);
    expect(Object.keys(report)).toEqual(['profile', 'turns', 'runs', 'limits', 'learned', 'verdict']);
    expect(report.profile).toBe('litellm-vllm');
    expect(report.turns).toBe(30);
    expect(Object.keys(report.runs)).toEqual(['plain', 'spillway']);
    for (const run of Object.values(report.runs) as Array<Record<string, unknown>>) {
      expect(Object.keys(run)).toEqual(RUN_KEYS);
      expect(Object.keys(run.overflows as object)).toEqual(['context', 'budget', 'output_cap']);
    }
    const { plain, spillway: fitted } = report.runs;
    expect(plain.stuck).toBe(true);
    expect(plain.turns_completed).toBeLessThan(30);
    expect(plain.overflows.budget + plain.overflows.context).toBeGreaterThanOrEqual(1);
    expect(plain.recoveries).toBe(0);
    // Every prompt it got accepted left room for the advertised 9,600-token reply in 21,000.
    expect(plain.prompt_tokens_max).toBeLessThanOrEqual(21_000 - 9_600);
    expect(fitted.stuck).toBe(false);
    expect(fitted.turns_completed).toBe(30);
    expect(fitted.provider_calls).toBeGreaterThanOrEqual(30);
    expect(report.verdict.plain).toMatchObject({
      outcome: 'stuck',
      stuck_at_turn: plain.turns_completed + 1,
    });
    expect(report.verdict.spillway).toMatchObject({ outcome: 'completed', truncated_prompts: 0 });
    expect(report.verdict.plain.prompt_tokens_per_completed_turn).toBe(
      Math.round(report.verdict.plain.prompt_tokens_sent / plain.turns_completed),
    );
  });

  it.concurrent('calls the plain run against Ollama complete but truncated, with the share of context it lost', async ({
    expect,
  }) => {
    const { status, stdout } = await spillway(['demo', '--profile', 'ollama', '--turns', '20', '--json']);
    expect(status).toBe(0);
    const report = JSON.parse(stdout);
    const { plain, spillway: fitted } = report.verdict;
    // The key set of each run is the documented one; the truncation is in the verdict.
    expect(Object.keys(report.runs.plain)).toEqual(RUN_KEYS);
    expect(report.runs.plain.stuck).toBe(false);
    expect(plain.outcome).toBe('completed_truncated');
    expect(plain.truncated_prompts).toBeGreaterThan(10);
    const worst = plain.worst_truncation;
    expect(worst.prompt_tokens).toBeGreaterThan(4_096);
    expect(worst.kept_tokens).toBeLessThanOrEqual(4_096);
    expect(plain.context_lost_max).toBeCloseTo(1 - worst.kept_tokens / worst.prompt_tokens, 3);
    expect(plain.context_lost_max).toBeGreaterThan(0.75);
    expect(fitted).toMatchObject({ outcome: 'completed', truncated_prompts: 0, context_lost_max: 0 });
    expect(fitted.cuts).toBeGreaterThan(0);
  });

  it.concurrent('says why both runs are the same against a window the session never comes near', async ({
    expect,
  }) => {
    const { status, stdout } = await spillway(['demo', '--profile', 'openai', '--turns', '12', '--json']);
    expect(status).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.runs.plain).toEqual(report.runs.spillway);
    const { unchanged } = report.verdict;
    expect(unchanged.window).toBe(128_000);
    expect(unchanged.prompt_tokens + unchanged.max_tokens).toBeLessThanOrEqual(unchanged.window);
    expect(unchanged.prompt_tokens).toBe(report.runs.plain.prompt_tokens_max);
  });

  it.concurrent('learns the window vLLM enforces behind LiteLLM before the session, and grows prompts past the plain run’s failure point', async ({
    expect,
  }) => {
    const { status, stdout } = await spillway([
      'demo',
      '--profile',
      'litellm-vllm',
      '--turns',
      '16',
      '--json',
    ]);
    expect(status).toBe(0);
    const report = JSON.parse(stdout);
    const { spillway: fitted } = report.runs;
    expect(fitted.turns_completed).toBe(16);
    expect(fitted.stuck).toBe(false);
    // The advertised 9,600 capped every prompt at 6,252 tokens; the window vLLM states lets them
    // grow past 21,000 − 9,600 = 11,400, where the plain run fails.
    expect(fitted.prompt_tokens_max).toBeGreaterThan(11_400);
    const rejections = fitted.overflows.context + fitted.overflows.budget + fitted.overflows.output_cap;
    expect(rejections).toBeLessThanOrEqual(1);
    expect(report.limits).toMatchObject({
      context_length: 21_000,
      source: { context_length: 'probed' },
      figures: [
        { source: 'probed', context_length: 21_000 },
        { source: 'claimed:/model/info', context_length: 9_600, output_cap: 9_600 },
      ],
      notices: [{ kind: 'limit_overridden', figure: 'context_length', value: 21_000, source: 'probed' }],
    });
  });

  it.concurrent('prints the verdict first, then the side-by-side summary, then a line per turn; writes the report', async ({
    expect,
  }) => {
    const report = join(mkdtempSync(join(tmpdir(), 'spillway-demo-')), 'demo.html');
    const { status, stdout } = await spillway(['demo', '--turns', '12', '--report', report]);
    expect(status).toBe(0);
    const lines = stdout.split('\n');
    const plainTurns = lines.filter((line) => line.startsWith('plain    turn'));
    const fittedTurns = lines.filter((line) => line.startsWith('spillway turn'));
    expect(fittedTurns).toHaveLength(12);
    expect(plainTurns.length).toBeLessThan(12);
    expect(plainTurns.at(-1)).toMatch(/→ rejected \((budget|context) overflow, window 21,000\)$/);
    const verdict = lines.findIndex((line) => line.startsWith('  plain: stuck at turn'));
    const table = lines.findIndex((line) => /^\s+turns completed\s+\d+ \/ 12\s+12 \/ 12$/.test(line));
    const firstTurn = lines.indexOf(plainTurns[0] as string);
    expect(verdict).toBeGreaterThan(0);
    expect(verdict).toBeLessThan(table);
    expect(table).toBeLessThan(firstTurn);
    expect(lines[verdict]).toMatch(/prompt [\d,]+ \+ max_tokens 9,600 = [\d,]+ > the 21,000-token window/);
    expect(lines[verdict + 1]).toMatch(/^ {2}spillway: completed all 12 turns/);
    expect(stdout).toContain(
      "spillway's limits: window 21,000 (stated by the server in answer to Spillway's probe)",
    );
    expect(stdout).toContain(`report: ${report}`);
    expect(readFileSync(report, 'utf8')).toContain('<svg id="chart"');
  });

  it.concurrent('rejects bad flags with the usual error shape and exit code 2', async ({ expect }) => {
    const { status, stderr } = await spillway(['demo', '--turns', '1']);
    expect(status).toBe(2);
    expect(JSON.parse(stderr)).toEqual({
      error: { code: 'invalid_argument', message: '--turns must be an integer >= 2, got "1"' },
    });
  });
});
