/**
 * The matrix's figures per strategy, over all its sessions, and side by side with Spillway on the
 * same requests: for each scenario, the first k completed turns of both, k being the fewer of the two.
 */
import {
  CACHED_INPUT_PRICE,
  prefixPairs,
  priced,
  type SessionFigures,
  type TurnFigures,
  windowUseAfterFirstCut,
} from './session-figures.js';

const round = (value: number, digits = 3) => Number(value.toFixed(digits));

function sum(turns: readonly TurnFigures[], pick: (turn: TurnFigures) => number): number {
  return turns.reduce((total, turn) => total + pick(turn), 0);
}

/** Input cost of turns in uncached-token equivalents. */
function costOf(turns: readonly TurnFigures[]): number {
  return sum(turns, (turn) => priced(turn));
}

export interface StrategyFigures {
  strategy: string;
  label: string;
  sessions: number;
  completed: number;
  completed_turns: number;
  requests: { ordinary: number; summary_calls: number; rejected: number; silently_truncated: number };
  /** Uncached prompt tokens plus cached ones at the cache price, per completed turn (summary calls included). */
  input_per_turn: number;
  uncached_per_turn: number;
  /** Of `input_per_turn`, what summary calls cost. */
  summary_input_per_turn: number;
  /** Consecutive ordinary requests that kept the previous one's messages as their prefix (sessions with two or more). */
  prefix_retention: { kept: number; pairs: number; share: number | null };
  /** The highest cuts per ordinary request in one session. */
  max_cuts_per_send: { scenario: string; value: number } | null;
  /** Mean prompt tokens / enforced window from each session's first cut on; null when it never cut. */
  window_use_after_first_cut: number | null;
  by_scenario: Record<
    string,
    { completed: boolean; turns: number; input_per_turn: number; cuts_per_send: number }
  >;
}

export function strategyFigures(
  strategy: string,
  label: string,
  sessions: readonly SessionFigures[],
): StrategyFigures {
  const turns = sessions.flatMap((session) => session.turns);
  const trailing = sessions.reduce((total, session) => total + priced(session.trailing), 0);
  const completedTurns = turns.length;
  const retention = sessions.reduce(
    (total, session) => {
      const pairs = prefixPairs(session.turns);
      return { kept: total.kept + pairs.kept, pairs: total.pairs + pairs.pairs };
    },
    { kept: 0, pairs: 0 },
  );
  const cutRates = sessions.map((session) => {
    const pairs = prefixPairs(session.turns);
    return {
      scenario: session.scenario,
      value: session.ordinaryRequests === 0 ? 0 : (pairs.pairs - pairs.kept) / session.ordinaryRequests,
    };
  });
  const windowUse = sessions.flatMap((session) => windowUseAfterFirstCut(session.turns));
  const perTurn = (value: number) => (completedTurns === 0 ? 0 : round(value / completedTurns, 1));
  return {
    strategy,
    label,
    sessions: sessions.length,
    completed: sessions.filter((session) => session.completed).length,
    completed_turns: completedTurns,
    requests: {
      ordinary: sessions.reduce((total, session) => total + session.ordinaryRequests, 0),
      summary_calls: sessions.reduce((total, session) => total + session.summaryCalls, 0),
      rejected: sessions.reduce((total, session) => total + session.rejected, 0),
      silently_truncated: sessions.reduce((total, session) => total + session.silentlyTruncated, 0),
    },
    input_per_turn: perTurn(costOf(turns) + trailing),
    uncached_per_turn: perTurn(sum(turns, (turn) => turn.uncached)),
    summary_input_per_turn: perTurn(
      sum(turns, (turn) => priced({ uncached: turn.summaryUncached, cached: turn.summaryCached })),
    ),
    prefix_retention: {
      ...retention,
      share: retention.pairs === 0 ? null : round(retention.kept / retention.pairs),
    },
    max_cuts_per_send: cutRates.reduce<{ scenario: string; value: number } | null>(
      (worst, rate) =>
        worst === null || rate.value > worst.value ? { ...rate, value: round(rate.value) } : worst,
      null,
    ),
    window_use_after_first_cut:
      windowUse.length === 0
        ? null
        : round(windowUse.reduce((total, value) => total + value, 0) / windowUse.length),
    by_scenario: Object.fromEntries(
      sessions.map((session) => [
        session.scenario,
        {
          completed: session.completed,
          turns: session.turns.length,
          input_per_turn:
            session.turns.length === 0 ? 0 : round(costOf(session.turns) / session.turns.length, 1),
          cuts_per_send: cutRates.find((rate) => rate.scenario === session.scenario)?.value ?? 0,
        },
      ]),
    ),
  };
}

/** One strategy against Spillway on the same first k completed turns of each scenario. */
export interface SameRequests {
  strategy: string;
  scenarios: number;
  turns: number;
  input_per_turn: { strategy: number; spillway: number };
  /** Prompt tokens no provider cache serves, per turn (cached ones not counted at all). */
  uncached_per_turn: { strategy: number; spillway: number };
  prefix_retention: { strategy: number | null; spillway: number | null };
  /** Scenarios where Spillway cost more, sent more uncached tokens, or kept the prefix less often, on those turns. */
  spillway_costlier_in: string[];
  spillway_more_uncached_in: string[];
  spillway_retains_less_in: string[];
}

export function sameRequests(
  strategy: string,
  sessions: readonly SessionFigures[],
  spillway: readonly SessionFigures[],
): SameRequests {
  let turns = 0;
  let scenarios = 0;
  const cost = { strategy: 0, spillway: 0 };
  const uncached = { strategy: 0, spillway: 0 };
  const uncachedOf = (turns: readonly TurnFigures[]) => sum(turns, (turn) => turn.uncached);
  const kept = { strategy: { kept: 0, pairs: 0 }, spillway: { kept: 0, pairs: 0 } };
  const costlier: string[] = [];
  const moreUncached: string[] = [];
  const retainsLess: string[] = [];
  for (const session of sessions) {
    const other = spillway.find((candidate) => candidate.scenario === session.scenario);
    if (!other) continue;
    const k = Math.min(session.turns.length, other.turns.length);
    if (k < 2) continue;
    scenarios++;
    turns += k;
    const mine = session.turns.slice(0, k);
    const theirs = other.turns.slice(0, k);
    cost.strategy += costOf(mine);
    cost.spillway += costOf(theirs);
    // Costs equal to the token are a tie: the same requests priced the same way.
    if (Math.round(costOf(theirs)) > Math.round(costOf(mine))) costlier.push(session.scenario);
    uncached.strategy += uncachedOf(mine);
    uncached.spillway += uncachedOf(theirs);
    if (uncachedOf(theirs) > uncachedOf(mine)) moreUncached.push(session.scenario);
    const a = prefixPairs(mine);
    const b = prefixPairs(theirs);
    kept.strategy = { kept: kept.strategy.kept + a.kept, pairs: kept.strategy.pairs + a.pairs };
    kept.spillway = { kept: kept.spillway.kept + b.kept, pairs: kept.spillway.pairs + b.pairs };
    if (b.kept < a.kept) retainsLess.push(session.scenario);
  }
  const share = ({ kept: count, pairs }: { kept: number; pairs: number }) =>
    pairs === 0 ? null : round(count / pairs);
  return {
    strategy,
    scenarios,
    turns,
    input_per_turn: {
      strategy: turns === 0 ? 0 : round(cost.strategy / turns, 1),
      spillway: turns === 0 ? 0 : round(cost.spillway / turns, 1),
    },
    uncached_per_turn: {
      strategy: turns === 0 ? 0 : round(uncached.strategy / turns, 1),
      spillway: turns === 0 ? 0 : round(uncached.spillway / turns, 1),
    },
    prefix_retention: { strategy: share(kept.strategy), spillway: share(kept.spillway) },
    spillway_costlier_in: costlier,
    spillway_more_uncached_in: moreUncached,
    spillway_retains_less_in: retainsLess,
  };
}

/** Whether Spillway's sessions meet the matrix claims, with what breaks each. */
export function spillwayClaims(spillway: StrategyFigures, comparisons: readonly SameRequests[]) {
  const costlier = comparisons.flatMap((entry) =>
    entry.spillway_costlier_in.map((scenario) => `${entry.strategy} on ${scenario}`),
  );
  const moreUncached = comparisons.flatMap((entry) =>
    entry.spillway_more_uncached_in.map((scenario) => `${entry.strategy} on ${scenario}`),
  );
  const retainsLess = comparisons.flatMap((entry) =>
    entry.spillway_retains_less_in.map((scenario) => `${entry.strategy} on ${scenario}`),
  );
  const overCutting = Object.entries(spillway.by_scenario)
    .filter(([, figures]) => figures.cuts_per_send > 0.2)
    .map(([scenario, figures]) => `${scenario}: ${round(figures.cuts_per_send, 2)} cuts per send`);
  const notCompleted = Object.entries(spillway.by_scenario)
    .filter(([, figures]) => !figures.completed)
    .map(([scenario]) => scenario);
  return {
    completes_every_session: { holds: notCompleted.length === 0, exceptions: notCompleted },
    lowest_input_per_turn_on_same_requests: { holds: costlier.length === 0, exceptions: costlier },
    lowest_uncached_per_turn_on_same_requests: { holds: moreUncached.length === 0, exceptions: moreUncached },
    highest_prefix_retention_on_same_requests: { holds: retainsLess.length === 0, exceptions: retainsLess },
    at_most_one_cut_per_five_sends: { holds: overCutting.length === 0, exceptions: overCutting },
    cached_input_price: CACHED_INPUT_PRICE,
  };
}
