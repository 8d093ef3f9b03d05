/** Real agent sessions replayed at small windows (bench/results/eval-transcripts.json). */
import type { FrontierPoint } from '../../eval/transcripts.js';
import type { ReplayMetrics } from '../../test/support/transcript-replay/index.js';
import { count, fixed, percent, table } from './format.js';

export interface TranscriptsResult {
  replay: { cachedInputPrice: number; maxTokens: number };
  runs: ReplayMetrics[];
  frontier: FrontierPoint[];
}

export function transcriptsTable(result: TranscriptsResult): string {
  const rows = result.runs.map((run) => [
    run.transcript,
    count(run.window),
    `${run.completed}/${run.steps}`,
    String(run.rejected.context + run.rejected.budget + run.rejected.output_cap),
    `${run.refusals} (${run.refusalsThatFit})`,
    run.cutUtilization ? percent(run.cutUtilization.median) : '–',
    fixed(run.cutsPerSend, 2),
    percent(run.prefixRetention),
    percent(run.prefixBound),
    count(run.uncachedPerStep),
    count(run.pricedPerStep),
  ]);
  return table(
    [
      'transcript',
      'window',
      'steps answered',
      'rejected by the provider',
      'refused before sending (of which the head and newest turn fit)',
      'window use of pruned requests (median)',
      'cuts per send',
      'prefix kept',
      'prefix kept, at most (any cut)',
      'uncached prompt tokens per step',
      `input per step (cached at ${percent(result.replay.cachedInputPrice, 0)})`,
    ],
    rows,
  );
}

/** What each `cutRunway` trades at the small windows: prefix kept against window use and cost. */
export function runwayFrontierTable(result: TranscriptsResult): string {
  const rows = result.frontier.map((point) => [
    count(point.window),
    String(point.runway),
    `${percent(point.prefixKept.median)} (${percent(point.prefixKept.min)})`,
    percent(point.windowUse),
    fixed(point.worstCutsPerSend, 2),
    count(point.pricedPerStep),
    String(point.rejected),
    String(point.overWindow),
  ]);
  return `${table(
    [
      'window',
      '`cutRunway` (turns)',
      'prefix kept, median (lowest)',
      'window use of pruned requests (median)',
      'cuts per send, worst',
      `input per step (cached at ${percent(result.replay.cachedInputPrice, 0)})`,
      'rejected by the provider',
      'sent over the window',
    ],
    rows,
  )}\n\n${bothAtNinety(result.frontier)}`;
}

/** The runways that keep both the median prefix and the median window use at 90% or more, per window. */
function bothAtNinety(frontier: FrontierPoint[]): string {
  const windows = [...new Set(frontier.map((point) => point.window))];
  const lines = windows.map((window) => {
    const runways = frontier
      .filter((point) => point.window === window && point.prefixKept.median >= 0.9 && point.windowUse >= 0.9)
      .map((point) => String(point.runway));
    return `${count(window)}: ${runways.length > 0 ? runways.join(', ') : 'none'}`;
  });
  return `Runways that keep both the prefix and the window use of pruned requests at 90% or more (medians over the sessions): ${lines.join('; ')}.`;
}
