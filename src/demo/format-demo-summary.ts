import { describeLimitSource, PROBE_MAX_TOKENS } from '../models/index.js';
import type { DemoResult } from './run-demo.js';
import type { DemoRun } from './run-demo-session.js';

const count = (value: number): string => value.toLocaleString('en-US');

/** What the backend advertises against what it enforces, in one line. */
export function backendLine(result: DemoResult): string {
  const { advertised } = result;
  const source = advertised.source.contextLength.replace(/^(claimed|discovered):/, '');
  const cap = advertised.outputCap === undefined ? 'no output cap' : `${count(advertised.outputCap)} output`;
  return `the backend advertises ${count(advertised.contextLength)} input / ${cap} tokens (${source}); it enforces ${count(result.realWindow)} on prompt + max_tokens`;
}

/**
 * What Spillway fitted to and where each figure came from, and what it learned on the way: the
 * window the probe or a rejection stated, instead of what was advertised.
 */
export function limitsLines(result: DemoResult): string[] {
  const { limits } = result;
  const cap =
    limits.outputCap === undefined
      ? 'no output cap'
      : `output cap ${count(limits.outputCap)} (${describeLimitSource(limits.source.outputCap)})`;
  const lines = [
    `spillway's limits: window ${count(limits.contextLength)} (${describeLimitSource(limits.source.contextLength)}), ${cap}`,
  ];
  if (limits.probe?.result === 'stated')
    lines.push(
      `the probe: one request asking for max_tokens ${count(PROBE_MAX_TOKENS)}, rejected at once (HTTP ${limits.probe.status}), nothing generated`,
    );
  for (const notice of limits.notices ?? []) lines.push(`learned before the session: ${notice.message}`);
  for (const learned of result.learned)
    lines.push(
      `learned during the session: window ${count(learned.value)} (${describeLimitSource(learned.source)}, the rejection at turn ${learned.turn})`,
    );
  if (lines.length === 1) lines.push('learned: nothing; the advertised limits held');
  return lines;
}

/** Where a stuck run stopped, in words. */
export function stuckLine(run: DemoRun, result: DemoResult): string {
  if (!run.stuck) return `${run.name}: completed all ${result.turns} turns`;
  const at = run.stuckAt;
  if (!at)
    return `${run.name}: stopped after ${run.turnsCompleted} turns (${run.reason}: ${run.message ?? ''})`;
  const sum =
    at.maxTokens === undefined
      ? ''
      : ` + max_tokens ${count(at.maxTokens)} = ${count(at.promptTokens + at.maxTokens)}`;
  const window = at.window ?? result.realWindow;
  return `${run.name}: stuck at turn ${at.turn}: prompt ${count(at.promptTokens)}${sum} > the ${count(window)}-token window (${at.overflow ?? 'rejected'}); sent again unchanged it fails the same way`;
}

/**
 * The side-by-side summary printed after the progress lines.
 *
 * @example
 * process.stdout.write(formatDemoSummary(result));
 */
export function formatDemoSummary(result: DemoResult): string {
  const { plain, spillway } = result.runs;
  const rows: Array<[string, string, string]> = [
    ['', 'plain', 'spillway'],
    [
      'turns completed',
      `${plain.turnsCompleted} / ${result.turns}`,
      `${spillway.turnsCompleted} / ${result.turns}`,
    ],
    [
      'stuck',
      plain.stuck ? `yes (turn ${plain.stuckAt?.turn ?? plain.turnsCompleted + 1})` : 'no',
      spillway.stuck ? `yes (turn ${spillway.stuckAt?.turn ?? spillway.turnsCompleted + 1})` : 'no',
    ],
    ['overflows: context', count(plain.overflows.context), count(spillway.overflows.context)],
    ['overflows: budget', count(plain.overflows.budget), count(spillway.overflows.budget)],
    ['overflows: output cap', count(plain.overflows.output_cap), count(spillway.overflows.output_cap)],
    ['recoveries', count(plain.recoveries), count(spillway.recoveries)],
    ['provider calls', count(plain.providerCalls), count(spillway.providerCalls)],
    ['prompt tokens sent', count(plain.promptTokensSent), count(spillway.promptTokensSent)],
    ['largest accepted prompt', count(plain.promptTokensMax), count(spillway.promptTokensMax)],
    [
      'prunes / compactions',
      `${plain.prunes.length} / ${plain.compactions.length}`,
      `${spillway.prunes.length} / ${spillway.compactions.length}`,
    ],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const column = Math.max(...rows.map(([, value]) => value.length)) + 3;
  const table = rows.map(
    ([label, left, right]) => `  ${label.padEnd(width)}   ${left.padEnd(column)}${right}`,
  );
  const scale = result.profile === 'litellm-vllm' ? ` at ${result.scale} scale` : '';
  return [
    '',
    `spillway demo · ${result.profile}${scale} · model ${result.model}`,
    `  ${backendLine(result)}`,
    `  plain: the full transcript, max_tokens = ${result.advertised.outputCap === undefined ? 'unset' : count(result.advertised.outputCap)} (the advertised cap); spillway: fitted to its limits${result.reserve === undefined ? '' : ` with a ${count(result.reserve)}-token reserve`}, recovery on`,
    ...limitsLines(result).map((line) => `  ${line}`),
    '',
    ...table,
    '',
    `  ${stuckLine(plain, result)}`,
    `  ${stuckLine(spillway, result)}`,
    '',
  ].join('\n');
}
