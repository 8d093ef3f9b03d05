/**
 * The recovery matrix (`npm run eval -- recovery`): every scenario's session run once per strategy
 * over loopback HTTP against the emulators, on the same script and tools, each strategy told the
 * same (advertised) limits.
 *
 * - `none`: the whole history every time, `max_tokens` the advertised output cap.
 * - the baselines in ./baselines, each a reproduction of what a project does, its source named there.
 * - `spillway`: the tool loop with a ConversationDriver and its recovery chain.
 *
 * Reported per strategy: sessions completed, completed model turns, failed requests (rejected,
 * silently truncated), input cost per completed turn (uncached prompt tokens plus cached ones at 10%,
 * summary calls included and also shown apart), prefix retention, cuts per send and window use after
 * the first cut (./session-figures.ts defines each); then each strategy against Spillway on the same
 * first k completed turns of every scenario, and whether Spillway's claims hold.
 */
import { countPromptTokens, countRenderedTokens, getTokenizer, IM_START } from '../../src/emulator/index.js';
import {
  type SameRequests,
  type StrategyFigures,
  sameRequests,
  spillwayClaims,
  strategyFigures,
} from './aggregate.js';
import { runSession, STRATEGIES, type Strategy } from './run-session.js';
import { SCENARIOS } from './scenarios.js';
import {
  CACHED_INPUT_PRICE,
  type PrefixTokens,
  type SessionFigures,
  sessionFigures,
} from './session-figures.js';

const GENERATION_PROMPT = countRenderedTokens(`${IM_START}assistant\n`, getTokenizer('o200k'));

/** The emulators' count of a body's system prompt, tools and first `messages` messages. */
const emulatorPrefixTokens: PrefixTokens = (body, messages) => {
  const object = body as { messages: unknown[] };
  return (
    countPromptTokens({ ...object, messages: object.messages.slice(0, messages) }).tokens - GENERATION_PROMPT
  );
};

export interface RecoveryResult {
  command: string;
  cached_input_price: number;
  scenarios: Array<{
    name: string;
    profile: string;
    advertised: { window: number; outputCap: number };
    enforced: number;
    turns: number;
  }>;
  strategies: StrategyFigures[];
  same_requests_as_spillway: SameRequests[];
  spillway_claims: ReturnType<typeof spillwayClaims>;
}

export async function evalRecovery(): Promise<RecoveryResult> {
  const figures = new Map<Strategy, SessionFigures[]>();
  for (const strategy of Object.keys(STRATEGIES) as Strategy[]) {
    const sessions: SessionFigures[] = [];
    for (const scenario of SCENARIOS) {
      const run = await runSession(scenario, strategy);
      sessions.push(
        sessionFigures({ ...run, enforced: scenario.enforced, prefixTokens: emulatorPrefixTokens }),
      );
    }
    figures.set(strategy, sessions);
  }
  const strategies = [...figures].map(([strategy, sessions]) =>
    strategyFigures(strategy, STRATEGIES[strategy], sessions),
  );
  const spillway = figures.get('spillway') ?? [];
  const comparisons = [...figures]
    .filter(([strategy]) => strategy !== 'spillway')
    .map(([strategy, sessions]) => sameRequests(strategy, sessions, spillway));
  const spillwayFigures = strategies.find((entry) => entry.strategy === 'spillway') as StrategyFigures;
  return {
    command: 'npm run eval -- recovery',
    cached_input_price: CACHED_INPUT_PRICE,
    scenarios: SCENARIOS.map((scenario) => ({
      name: scenario.name,
      profile: scenario.profile,
      advertised: scenario.advertised,
      enforced: scenario.enforced,
      turns: scenario.turns,
    })),
    strategies,
    same_requests_as_spillway: comparisons,
    spillway_claims: spillwayClaims(spillwayFigures, comparisons),
  };
}
