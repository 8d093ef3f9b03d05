/**
 * What a cut keeps (`npm run eval -- kept`): real agent trajectories replayed at 4k, 8k and 16k
 * windows, each step's whole history sent through Spillway (a `ConversationDriver` as users get it)
 * and through the baselines, and measured by needed-context recall: of the items the agent's next
 * action took from earlier outputs, the share the request actually sent still held. Beside it: steps
 * sent, window use, prefix retention and uncached prompt tokens per step. The held-out third of the
 * trajectories (test/fixtures/trajectories/README.md) is reported on its own.
 */
import { median } from '../../test/support/median.js';
import { BASELINES } from './baselines.js';
import { type RunFigures, runFigures } from './kept-metrics.js';
import { commonWords, messageText, neededItems } from './needed-items.js';
import { baselineBudget, maxTokensFor, replayBaseline, replaySpillway } from './replay-strategies.js';
import { readTrajectories, type Split, type Trajectory } from './trajectories.js';

export const KEPT_WINDOWS = [4_096, 8_192, 16_384] as const;
export const SPILLWAY = 'spillway';
/**
 * Other `cutRunway` settings replayed beside the default, for the trade-off between recall and cache;
 * 100 (the most the option takes) cuts as deep as the turns allow every time: the fewest cuts there
 * can be, so the highest prefix retention a turn-atomic cut reaches.
 */
export const KEPT_RUNWAYS = [0, 2, 100] as const;
const runwayName = (runway: number) => `spillway, cutRunway ${runway}`;

/** One strategy at one window over one side of the split. */
export interface KeptRow {
  strategy: string;
  window: number;
  split: Split | 'all';
  trajectories: number;
  /** Mean over trajectories with needed items of their recall. */
  recall: number;
  /** The same with markers and stubs left out of what is searched (see `RunFigures.contentRecall`). */
  contentRecall: number;
  /** All found items over all needed items. */
  pooledRecall: number;
  needed: number;
  stepsSent: number;
  steps: number;
  windowUse: number;
  prefixRetention: number;
  uncachedPerStep: number;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}

function rowOf(strategy: string, window: number, split: KeptRow['split'], runs: RunFigures[]): KeptRow {
  const recalls = runs.flatMap((run) => (run.recall === null ? [] : [run.recall]));
  const needed = runs.reduce((sum, run) => sum + run.needed, 0);
  return {
    strategy,
    window,
    split,
    trajectories: runs.length,
    recall: mean(recalls),
    contentRecall: mean(runs.flatMap((run) => (run.contentRecall === null ? [] : [run.contentRecall]))),
    pooledRecall: needed === 0 ? 0 : runs.reduce((sum, run) => sum + run.found, 0) / needed,
    needed,
    stepsSent: runs.reduce((sum, run) => sum + run.sent, 0),
    steps: runs.reduce((sum, run) => sum + run.steps, 0),
    windowUse: median(runs.flatMap((run) => (run.windowUse === null ? [] : [run.windowUse]))),
    prefixRetention: mean(runs.map((run) => run.prefixRetention)),
    uncachedPerStep: mean(runs.map((run) => run.uncachedPerStep)),
  };
}

/** The needed items of every step of a trajectory. */
function neededPerStep(trajectory: Trajectory, common: ReadonlySet<string>): string[][] {
  const texts = trajectory.messages.map(messageText);
  return trajectory.steps.map((at) => neededItems({ messages: trajectory.messages, texts, at, common }));
}

/** Replays every trajectory at every window with every strategy; the figures by strategy and split. */
export async function evalKept({
  windows = KEPT_WINDOWS,
  only,
}: {
  windows?: readonly number[];
  /** Replay only these trajectories (by name), for a quick look while tuning on the tuning side. */
  only?: (trajectory: Trajectory) => boolean;
} = {}) {
  const all = readTrajectories();
  const trajectories = only ? all.filter(only) : all;
  // Common words come from the tuning side only, so nothing of the held-out runs shapes the metric.
  const common = commonWords(all.filter((run) => run.split === 'tuning').map((run) => run.messages));
  const needed = new Map(trajectories.map((run) => [run.name, neededPerStep(run, common)]));
  const runs: Array<{ strategy: string; window: number; split: Split; figures: RunFigures }> = [];
  for (const window of windows)
    for (const trajectory of trajectories) {
      const items = needed.get(trajectory.name) ?? [];
      const spillway = await replaySpillway(trajectory, window);
      runs.push({
        strategy: SPILLWAY,
        window,
        split: trajectory.split,
        figures: runFigures({ trajectory, window, sent: spillway, needed: items }),
      });
      for (const cutRunway of KEPT_RUNWAYS)
        runs.push({
          strategy: runwayName(cutRunway),
          window,
          split: trajectory.split,
          figures: runFigures({
            trajectory,
            window,
            sent: await replaySpillway(trajectory, window, { cutRunway }),
            needed: items,
          }),
        });
      for (const baseline of BASELINES)
        runs.push({
          strategy: baseline.name,
          window,
          split: trajectory.split,
          figures: runFigures({
            trajectory,
            window,
            sent: replayBaseline(baseline, trajectory, window, items),
            needed: items,
          }),
        });
    }
  const strategies = [
    SPILLWAY,
    ...KEPT_RUNWAYS.map(runwayName),
    ...BASELINES.map((baseline) => baseline.name),
  ];
  const rows: KeptRow[] = [];
  for (const split of ['all', 'tuning', 'held-out'] as const)
    for (const window of windows)
      for (const strategy of strategies)
        rows.push(
          rowOf(
            strategy,
            window,
            split,
            runs
              .filter(
                (run) =>
                  run.strategy === strategy &&
                  run.window === window &&
                  (split === 'all' || run.split === split),
              )
              .map((run) => run.figures),
          ),
        );
  return {
    command: 'npm run eval -- kept',
    trajectories: trajectories.map((run) => ({
      name: run.name,
      agent: run.agent,
      split: run.split,
      steps: run.steps.length,
      source: run.source,
    })),
    replay: {
      windows: KEPT_WINDOWS,
      maxTokens: KEPT_WINDOWS.map(maxTokensFor),
      baselineBudget: KEPT_WINDOWS.map(baselineBudget),
      count: "the emulator's chat template with o200k, each message counted once",
      history: 'every step sends the whole recorded history up to it; nothing is summarized',
    },
    strategies: [
      {
        name: SPILLWAY,
        keeps:
          'ConversationDriver with its defaults (what users get): outputs in use kept, cuts sticky and deep enough for 5 turns, the names of dropped turns listed in their marker',
      },
      ...KEPT_RUNWAYS.map((runway) => ({
        name: runwayName(runway),
        keeps:
          runway === 100
            ? 'the same with every cut as deep as the turns allow (head, marker, newest turn): the fewest cuts'
            : `the same with cuts deep enough for ${runway} turns`,
      })),
      ...BASELINES.map((baseline) => ({ name: baseline.name, keeps: baseline.keeps })),
    ],
    rows,
    runs: runs.map((run) => ({
      strategy: run.strategy,
      window: run.window,
      split: run.split,
      ...run.figures,
    })),
  };
}
