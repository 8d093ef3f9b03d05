/** What each way of cutting keeps of what the agent goes on to use (bench/results/eval-kept.json). */
import type { KeptRow } from '../../eval/kept/index.js';
import { count, fixed, percent, table } from './format.js';

export interface KeptResult {
  trajectories: Array<{ name: string; agent: string; split: string }>;
  strategies: Array<{ name: string; keeps: string }>;
  rows: KeptRow[];
}

function splitTable(result: KeptResult, split: KeptRow['split']): string {
  const rows = result.rows
    .filter((row) => row.split === split)
    .map((row) => [
      count(row.window),
      row.strategy,
      fixed(row.recall, 3),
      row.contentRecall === undefined ? '' : fixed(row.contentRecall, 3),
      `${count(row.stepsSent)}/${count(row.steps)}`,
      percent(row.windowUse, 0),
      fixed(row.prefixRetention, 3),
      count(row.uncachedPerStep),
    ]);
  return table(
    [
      'window',
      'strategy',
      'needed-context recall',
      'recall in content (markers and stubs aside)',
      'steps sent',
      'window use (median, cut steps)',
      'prefix retention',
      'uncached prompt tokens per step',
    ],
    rows,
  );
}

const ORACLE = /^oracle/;

/**
 * One sentence per window: Spillway's recall and uncached tokens against the best baseline's (the
 * oracle left out: it is the ceiling, not a strategy), on every trajectory and on the held-out third.
 */
export function keptSummary(result: KeptResult): string {
  const windows = [...new Set(result.rows.map((row) => row.window))];
  const lines = windows.map((window) => {
    const of = (split: KeptRow['split']) =>
      result.rows.filter((row) => row.window === window && row.split === split);
    const describe = (split: KeptRow['split']) => {
      const rows = of(split);
      const spillway = rows.find((row) => row.strategy === 'spillway');
      const baselines = rows.filter(
        (row) => !row.strategy.startsWith('spillway') && !ORACLE.test(row.strategy),
      );
      const best = baselines.reduce((a, b) => (b.recall > a.recall ? b : a));
      if (!spillway) return '';
      const content =
        spillway.contentRecall === undefined
          ? ''
          : ` (${fixed(spillway.contentRecall, 3)} as content, the rest as names its markers list)`;
      return `${fixed(spillway.recall, 3)}${content} against ${fixed(best.recall, 3)} for ${best.strategy} (prefix retention ${fixed(spillway.prefixRetention, 2)} against ${fixed(best.prefixRetention, 2)}, uncached prompt tokens per step ${count(spillway.uncachedPerStep)} against ${count(best.uncachedPerStep)})`;
    };
    return `- ${count(window)} tokens: Spillway's default holds ${describe('all')}; on the held-out third ${describe('held-out')}.`;
  });
  return lines.join('\n');
}

/** The tables: every trajectory, then the tuning side and the held-out third on their own. */
export function keptTables(result: KeptResult): string {
  const runs = (split: string) => result.trajectories.filter((run) => run.split === split);
  const agents = [...new Set(result.trajectories.map((run) => run.agent))];
  const sides = (['tuning', 'held-out'] as const).map(
    (split) =>
      `**${split === 'tuning' ? 'Tuning side' : 'Held-out third'}** (${runs(split).length} trajectories)\n\n${splitTable(result, split)}`,
  );
  return [
    keptSummary(result),
    `**All ${result.trajectories.length} trajectories** (${agents.join(', ')})`,
    splitTable(result, 'all'),
    ...sides,
    table(
      ['strategy', 'what it keeps'],
      result.strategies.map((strategy) => [strategy.name, strategy.keeps]),
    ),
  ].join('\n\n');
}
