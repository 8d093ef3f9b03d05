/**
 * The README's usage, `manager.fit(fromOpenAIChat(body))` on every send with a body parsed anew (what
 * every HTTP-shaped caller does), against the tool loop's path, where the same message objects are
 * appended to one array. One turn (an assistant tool call and its result) is appended before every
 * send, up to 1,000 turns; after each send the provider's count is fed back (`observe`), as every
 * surface does.
 *
 * Times are process CPU time of `fromOpenAIChat` + `fit` + `observe` (the JSON parse is the caller's,
 * and is not counted). Between sends both paths do the same untimed work, the caller's: the body
 * written and parsed (the same-objects path then drops it), so both meet the same state of memory
 * and caches, and the difference is what Spillway does with a body read anew. The cost at a
 * checkpoint is the median of the sends just before it; the two paths grow side by side in each
 * round, send by send, taking turns going first (a change in the machine's load falls on both), for
 * `rounds` rounds, and each figure is the median over rounds (ratios are taken within a round).
 *
 * `npx tsx bench/fresh-bodies.ts` runs it alone; `npm run bench -- fresh-bodies` as part of the suite.
 */
import { pathToFileURL } from 'node:url';
import { type ChatRequest, ContextWindowManager, fromOpenAIChat, toOpenAIChat } from '../src/core/index.js';
import { median } from '../test/support/median.js';
import { buildSession } from './bounded-send.js';
import { round } from './timing.js';

/** Turn counts at which the per-send cost is reported. */
export const FRESH_CHECKPOINTS = [10, 100, 1_000] as const;
/** Sends whose median is the per-send cost at a checkpoint. */
const NEIGHBOURS = 9;
/**
 * GPT-4o's window: the session outgrows it a little after 300 turns, so the later sends also keep a
 * cut (the same one, sticky, most of the time), as a long agent run does.
 */
const WINDOW = 128_000;
const MODEL = 'gpt-4o';

/** Options of {@link benchFreshBodies}. */
export interface FreshBodiesOptions {
  /** Tool turns the session grows to. */
  turns?: number;
  rounds?: number;
}

/** One path's cost at one checkpoint. */
export interface FreshBodiesPoint {
  turns: number;
  messages: number;
  /** CPU milliseconds per send (median of the sends before the checkpoint, then over rounds). */
  freshMs: number;
  sameMs: number;
  /** fresh / same, per round, the median. */
  ratio: number;
}

/** What {@link benchFreshBodies} reports. */
export interface FreshBodiesResult {
  command: string;
  clock: string;
  rounds: number;
  window: number;
  points: FreshBodiesPoint[];
  /** CPU seconds over the whole growth, per path (median over rounds). */
  totalFreshSeconds: number;
  totalSameSeconds: number;
  /** Per-send cost at the last checkpoint over that at the one before, for the README pattern. */
  growthFresh: number;
  growthSame: number;
}

function cpuMs(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1_000;
}

/** What the provider reports for a fitted request: a stable figure a little above the raw estimate. */
function reported(fitted: { breakdown: { total: number } }): number {
  return Math.round(fitted.breakdown.total * 1.05) + 3;
}

interface Run {
  /** CPU milliseconds of every send, in order. */
  costs: number[];
  total: number;
}

/** The caller's work between sends, untimed: the body of this send as JSON text, parsed. */
function callerParse(wire: Record<string, unknown>, turn: number): unknown {
  const all = wire.messages as unknown[];
  return JSON.parse(JSON.stringify({ ...wire, messages: all.slice(0, 4 + 2 * turn) }));
}

/**
 * Both paths over one growth, send by send: before every send the caller's body is written and
 * parsed for each (the same-objects path then drops it), and the two take turns going first, so a
 * change in the machine's load falls on both alike.
 */
function runBoth(base: ChatRequest, wire: Record<string, unknown>, turns: number): { fresh: Run; same: Run } {
  // The tool loop's path: one array of the same message objects, grown in place.
  const sameManager = new ContextWindowManager({ contextLength: WINDOW, model: MODEL });
  const messages = base.messages.slice(0, 2);
  // The README's path: each send's body is JSON text parsed anew, converted, fitted.
  const freshManager = new ContextWindowManager({ contextLength: WINDOW, model: MODEL });
  const same: number[] = [];
  const fresh: number[] = [];
  const sendSame = (turn: number) => {
    callerParse(wire, turn);
    const request: ChatRequest = { ...base, messages: messages.slice() };
    const start = process.cpuUsage();
    const fitted = sameManager.fit(request);
    sameManager.observe({ promptTokens: reported(fitted) });
    same.push(cpuMs(start));
  };
  const sendFresh = (turn: number) => {
    const body = callerParse(wire, turn);
    const start = process.cpuUsage();
    const fitted = freshManager.fit(fromOpenAIChat(body));
    freshManager.observe({ promptTokens: reported(fitted) });
    fresh.push(cpuMs(start));
  };
  for (let turn = 0; turn < turns; turn++) {
    messages.push(...base.messages.slice(2 + 2 * turn, 4 + 2 * turn));
    if (turn % 2 === 0) {
      sendSame(turn);
      sendFresh(turn);
    } else {
      sendFresh(turn);
      sendSame(turn);
    }
  }
  const total = (costs: number[]) => costs.reduce((sum, cost) => sum + cost, 0);
  return { fresh: { costs: fresh, total: total(fresh) }, same: { costs: same, total: total(same) } };
}

const at = (run: Run, turns: number) => median(run.costs.slice(Math.max(0, turns - NEIGHBOURS), turns));

/**
 * Per-send cost of the README's pattern against the same-objects path at 10, 100 and 1,000 turns.
 *
 * @example
 * const result = await benchFreshBodies({ rounds: 3 });
 * console.log(result.points.at(-1)?.ratio); // fresh / same at 1,000 turns
 */
export async function benchFreshBodies({
  turns = 1_000,
  rounds = 3,
}: FreshBodiesOptions = {}): Promise<FreshBodiesResult> {
  const checkpoints = FRESH_CHECKPOINTS.filter((checkpoint) => checkpoint <= turns);
  const perRound: Array<{ fresh: Run; same: Run }> = [];
  for (let round = 0; round < rounds; round++) {
    // A session of its own each round: what a send appends is new to every cache, as it is in a run.
    const base: ChatRequest = {
      format: 'openai',
      model: MODEL,
      messages: buildSession(turns, 7 + round),
      tools: [
        {
          name: 'read_file',
          description: 'Read a file',
          parameters: { type: 'object', properties: { path: { type: 'string' } } },
        },
      ],
      extra: {},
    };
    const wire = toOpenAIChat(base) as unknown as Record<string, unknown>;
    perRound.push(runBoth(base, wire, turns));
  }
  const points = checkpoints.map((checkpoint) => ({
    turns: checkpoint,
    messages: 2 + 2 * checkpoint,
    freshMs: round(median(perRound.map(({ fresh }) => at(fresh, checkpoint))), 3),
    sameMs: round(median(perRound.map(({ same }) => at(same, checkpoint))), 3),
    ratio: round(median(perRound.map(({ fresh, same }) => at(fresh, checkpoint) / at(same, checkpoint))), 2),
  }));
  const growth = (pick: (entry: { fresh: Run; same: Run }) => Run) => {
    const [before, last] = checkpoints.slice(-2);
    if (before === undefined || last === undefined) return 1;
    return round(median(perRound.map((entry) => at(pick(entry), last) / at(pick(entry), before))), 2);
  };
  return {
    command: 'npm run bench -- fresh-bodies',
    clock: 'process CPU time',
    rounds,
    window: WINDOW,
    points,
    totalFreshSeconds: round(median(perRound.map(({ fresh }) => fresh.total)) / 1_000, 2),
    totalSameSeconds: round(median(perRound.map(({ same }) => same.total)) / 1_000, 2),
    growthFresh: growth((entry) => entry.fresh),
    growthSame: growth((entry) => entry.same),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const turns = Number(process.env.TURNS ?? 1_000);
  const rounds = Number(process.env.ROUNDS ?? 3);
  console.log(JSON.stringify(await benchFreshBodies({ turns, rounds }), null, 2));
}
