/** Real agent sessions replayed at small windows (bench/results/eval-transcripts.json). */
import type { ReplayMetrics } from '../../test/support/transcript-replay/index.js';
import { count, fixed, percent, table } from './format.js';

export interface TranscriptsResult {
  replay: { cachedInputPrice: number; maxTokens: number };
  runs: ReplayMetrics[];
}

export function transcriptsTable(result: TranscriptsResult): string {
  const rows = result.runs.map((run) => [
    run.transcript,
    count(run.window),
    `${run.completed}/${run.steps}`,
    String(run.rejected.context + run.rejected.budget + run.rejected.output_cap),
    `${run.refusals} (${run.refusalsThatFit})`,
    fixed(run.cutsPerSend, 2),
    percent(run.prefixRetention),
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
      'cuts per send',
      'prefix kept',
      'uncached prompt tokens per step',
      `input per step (cached at ${percent(result.replay.cachedInputPrice, 0)})`,
    ],
    rows,
  );
}
