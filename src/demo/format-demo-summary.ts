import { describeLimitSource, PROBE_MAX_TOKENS } from '../models/index.js';
import { type DemoRunVerdict, type DemoVerdict, demoVerdict } from './demo-verdict.js';
import type { DemoResult } from './run-demo.js';
import type { DemoRun } from './run-demo-session.js';
import { percent, verdictLines } from './verdict-lines.js';

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

/** The summary table's rows: a label and each run's figure. */
export function summaryRows(result: DemoResult, verdict: DemoVerdict): Array<[string, string, string]> {
  const { plain, spillway } = result.runs;
  const both = (figure: (run: DemoRun, judged: DemoRunVerdict) => string): [string, string] => [
    figure(plain, verdict.plain),
    figure(spillway, verdict.spillway),
  ];
  return [
    ['turns completed', ...both((run) => `${run.turnsCompleted} / ${result.turns}`)],
    [
      'stuck',
      ...both((run) => (run.stuck ? `yes (turn ${run.stuckAt?.turn ?? run.turnsCompleted + 1})` : 'no')),
    ],
    [
      'prompts silently truncated',
      ...both((_, judged) =>
        judged.truncatedRequests === 0
          ? '0'
          : `${judged.truncatedRequests} (up to ${percent(judged.contextLostMax)} lost)`,
      ),
    ],
    ['overflows: context', ...both((run) => count(run.overflows.context))],
    ['overflows: budget', ...both((run) => count(run.overflows.budget))],
    ['overflows: output cap', ...both((run) => count(run.overflows.output_cap))],
    ['recoveries', ...both((run) => count(run.recoveries))],
    ['provider calls', ...both((run) => count(run.providerCalls))],
    ['prompt tokens sent', ...both((run) => count(run.promptTokensSent))],
    [
      '  per completed turn',
      ...both((_, judged) =>
        judged.promptTokensPerTurn === undefined ? '-' : count(judged.promptTokensPerTurn),
      ),
    ],
    ['largest accepted prompt', ...both((run) => count(run.promptTokensMax))],
    ['prunes / compactions', ...both((run) => `${run.prunes.length} / ${run.compactions.length}`)],
  ];
}

/** The setting of the demo: what the backend advertises and enforces, how each run sends. */
export function settingLines(result: DemoResult): string[] {
  const cap =
    result.advertised.outputCap === undefined
      ? 'unset (no cap advertised)'
      : `${count(result.advertised.outputCap)} (the advertised cap)`;
  const reserve = result.reserve === undefined ? '' : ` with a ${count(result.reserve)}-token reserve`;
  return [
    backendLine(result),
    `plain: the full transcript, max_tokens ${cap}; spillway: fitted to its limits${reserve}, recovery on`,
    ...limitsLines(result),
  ];
}

/**
 * What `spillway demo` prints after the runs: the verdict first, then the side-by-side table, then
 * the setting and what Spillway learned. The per-turn lines follow it.
 *
 * @example
 * process.stdout.write(formatDemoSummary(result));
 */
export function formatDemoSummary(result: DemoResult, verdict: DemoVerdict = demoVerdict(result)): string {
  const rows: Array<[string, string, string]> = [['', 'plain', 'spillway'], ...summaryRows(result, verdict)];
  const width = Math.max(...rows.map(([label]) => label.length));
  const column = Math.max(...rows.map(([, value]) => value.length)) + 3;
  const table = rows.map(([label, left, right]) =>
    `  ${label.padEnd(width)}   ${left.padEnd(column)}${right}`.trimEnd(),
  );
  const scale = result.profile === 'litellm-vllm' ? ` at ${result.scale} scale` : '';
  return [
    `spillway demo · ${result.profile}${scale} · model ${result.model}`,
    '',
    ...verdictLines(result, verdict).map((line) => `  ${line}`),
    '',
    ...table,
    '',
    ...settingLines(result).map((line) => `  ${line}`),
    '',
  ].join('\n');
}
