/** The recovery matrix (bench/results/recovery.json) as tables, and whether Spillway's claims hold. */
import type { RecoveryResult } from '../../eval/recovery/index.js';
import { count, fixed, percent, table, times } from './format.js';

/** Every strategy over all its sessions. */
export function recoveryTable(result: RecoveryResult): string {
  const spillway = result.strategies.find((entry) => entry.strategy === 'spillway');
  const rows = result.strategies.map((entry) => [
    entry.label,
    `${entry.completed}/${entry.sessions}`,
    count(entry.completed_turns),
    `${entry.requests.rejected} / ${entry.requests.silently_truncated}`,
    count(entry.input_per_turn),
    spillway && entry !== spillway ? times(entry.input_per_turn / spillway.input_per_turn) : '1×',
    `${entry.requests.summary_calls} (${count(entry.summary_input_per_turn)})`,
    entry.prefix_retention.share === null ? '–' : percent(entry.prefix_retention.share),
    entry.max_cuts_per_send === null ? '–' : fixed(entry.max_cuts_per_send.value, 2),
    entry.window_use_after_first_cut === null ? '–' : percent(entry.window_use_after_first_cut, 0),
  ]);
  return table(
    [
      'strategy',
      'sessions completed',
      'model turns completed',
      'requests rejected / silently truncated',
      `input per completed turn (uncached + ${percent(result.cached_input_price, 0)} of cached)`,
      '× Spillway',
      'summary calls (their input per turn)',
      'prefix kept',
      'cuts per send, worst session',
      'window use after the first cut',
    ],
    rows,
  );
}

/** Each strategy against Spillway on the same first turns of every scenario. */
export function sameRequestsTable(result: RecoveryResult): string {
  const rows = result.same_requests_as_spillway.map((entry) => {
    const label =
      result.strategies.find((strategy) => strategy.strategy === entry.strategy)?.label ?? entry.strategy;
    const retention = (value: number | null) => (value === null ? '–' : percent(value));
    return [
      label,
      `${entry.scenarios} / ${count(entry.turns)}`,
      `${count(entry.input_per_turn.strategy)} / ${count(entry.input_per_turn.spillway)}`,
      `${count(entry.uncached_per_turn.strategy)} / ${count(entry.uncached_per_turn.spillway)}`,
      `${retention(entry.prefix_retention.strategy)} / ${retention(entry.prefix_retention.spillway)}`,
      entry.spillway_costlier_in.join(', ') || 'none',
      entry.spillway_more_uncached_in.join(', ') || 'none',
      entry.spillway_retains_less_in.join(', ') || 'none',
    ];
  });
  return table(
    [
      'strategy',
      'scenarios / turns compared',
      'input per turn: strategy / Spillway',
      'uncached prompt tokens per turn: strategy / Spillway',
      'prefix kept: strategy / Spillway',
      'scenarios where Spillway cost more',
      'scenarios where Spillway sent more uncached tokens',
      'scenarios where Spillway kept the prefix less',
    ],
    rows,
  );
}

/** The claims, each with what breaks it. */
export function recoveryClaims(result: RecoveryResult): string {
  const claims = result.spillway_claims;
  const line = (text: string, claim: { holds: boolean; exceptions: string[] }) =>
    `- ${text}: **${claim.holds ? 'holds' : 'does not hold'}**${claim.holds ? '' : ` (${claim.exceptions.join('; ')})`}`;
  return [
    line('Spillway completes every session', claims.completes_every_session),
    line(
      'Spillway has the lowest input per completed turn of all strategies on the same requests',
      claims.lowest_input_per_turn_on_same_requests,
    ),
    line(
      'Spillway sends the fewest uncached prompt tokens per completed turn of all strategies on the same requests',
      claims.lowest_uncached_per_turn_on_same_requests,
    ),
    line(
      'Spillway keeps the prefix at least as often as every strategy on the same requests',
      claims.highest_prefix_retention_on_same_requests,
    ),
    line(
      'Spillway cuts at most once per five sends in every scenario',
      claims.at_most_one_cut_per_five_sends,
    ),
  ].join('\n');
}
