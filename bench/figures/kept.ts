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
      'steps sent',
      'window use (median, cut steps)',
      'prefix retention',
      'uncached prompt tokens per step',
    ],
    rows,
  );
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
    `**All ${result.trajectories.length} trajectories** (${agents.join(', ')})`,
    splitTable(result, 'all'),
    ...sides,
    table(
      ['strategy', 'what it keeps'],
      result.strategies.map((strategy) => [strategy.name, strategy.keeps]),
    ),
  ].join('\n\n');
}
