/**
 * @module
 * The demo's verdict in words, the first thing the summary and the report page say: one line per
 * run, and why nothing changed when both runs sent the same requests.
 */
import { type DemoRunVerdict, type DemoVerdict, lostShare } from './demo-verdict.js';
import type { DemoResult } from './run-demo.js';
import type { DemoRun } from './run-demo-session.js';
import { percent } from './share-percent.js';

export { percent };

const count = (value: number): string => value.toLocaleString('en-US');

function stuckPhrase(verdict: DemoRunVerdict, result: DemoResult): string {
  const at = verdict.stuckAt;
  if (!at) return '';
  const sum =
    at.maxTokens === undefined
      ? ''
      : ` + max_tokens ${count(at.maxTokens)} = ${count(at.promptTokens + at.maxTokens)}`;
  const window = at.window ?? result.realWindow;
  return `stuck at turn ${at.turn} of ${result.turns}: prompt ${count(at.promptTokens)}${sum} > the ${count(window)}-token window (${at.overflow ?? 'rejected'}); sent again unchanged it fails the same way`;
}

function truncatedPhrase(verdict: DemoRunVerdict, result: DemoResult): string {
  const final = verdict.finalTruncation;
  const worst = verdict.worstTruncation;
  const headline =
    final?.keptTokens === undefined
      ? `lost up to ${percent(verdict.contextLostMax)} of its context`
      : `lost ${percent(lostShare(final))} of its context: for the last turn the server kept ${count(final.keptTokens)} of the ${count(final.promptTokens)} prompt tokens sent`;
  const most =
    worst !== undefined && worst !== final
      ? `, up to ${percent(verdict.contextLostMax)} at turn ${worst.turn}`
      : '';
  return `completed all ${result.turns} turns, but ${headline}. The server silently dropped the front of ${verdict.truncatedRequests} of its prompts from turn ${verdict.firstTruncatedTurn}${most}, to fit its ${count(result.realWindow)}-token window, and answered each with HTTP 200`;
}

function cutsPhrase(run: DemoRun): string {
  const parts = [
    ...(run.prunes.length > 0 ? [`cutting old context ${run.prunes.length}×`] : []),
    ...(run.compactions.length > 0 ? [`compacting ${run.compactions.length}×`] : []),
  ];
  return parts.length === 0 ? 'with nothing cut' : parts.join(' and ');
}

/** What one run came to, in one line. */
export function runVerdictLine(run: DemoRun, verdict: DemoRunVerdict, result: DemoResult): string {
  switch (verdict.outcome) {
    case 'stuck':
      return stuckPhrase(verdict, result);
    case 'stopped':
      return `stopped after ${verdict.turnsCompleted} of ${result.turns} turns (${run.reason}${run.message ? `: ${run.message}` : ''})`;
    case 'completed_truncated':
      return truncatedPhrase(verdict, result);
    case 'completed':
      return run.name === 'plain'
        ? `completed all ${result.turns} turns`
        : `completed all ${result.turns} turns inside the ${count(result.realWindow)}-token window, ${cutsPhrase(run)}; nothing was rejected or silently dropped`;
  }
}

/** Why both runs are the same, when they are. */
export function unchangedLine(verdict: DemoVerdict): string | undefined {
  const same = verdict.unchanged;
  if (!same) return undefined;
  const request =
    same.maxTokens === undefined
      ? `prompt ${count(same.promptTokens)}`
      : `prompt ${count(same.promptTokens)} + max_tokens ${count(same.maxTokens)} = ${count(same.promptTokens + same.maxTokens)}`;
  return `both runs sent the same requests: the largest, ${request}, fits the ${count(same.window)}-token window, and Spillway changes only a request that does not fit; with a longer session or a smaller window they part`;
}

/** The verdict, first line per run, then the reason the runs agree when they do. */
export function verdictLines(result: DemoResult, verdict: DemoVerdict): string[] {
  const { plain, spillway } = result.runs;
  const unchanged = unchangedLine(verdict);
  return [
    `plain: ${runVerdictLine(plain, verdict.plain, result)}`,
    `spillway: ${runVerdictLine(spillway, verdict.spillway, result)}`,
    ...(unchanged ? [unchanged] : []),
  ];
}
