/**
 * @module
 * What the demo's two runs came to, as data: who completed, who got stuck and on which request, who
 * completed only because the server silently dropped the front of its prompts (and how much), and,
 * when both runs sent the same requests, why there was nothing to manage. The summary, the report
 * page and `--json` all read it from here.
 */
import type { DemoResult } from './run-demo.js';
import type { DemoRequest, DemoRun } from './run-demo-session.js';

/**
 * How a run ended: `completed`, `completed_truncated` (it got its answer, but the server answered
 * prompts it had cut without saying so), `stuck` (a rejected request it could not get past) or
 * `stopped` (any other end before the answer).
 */
export type DemoOutcome = 'completed' | 'completed_truncated' | 'stuck' | 'stopped';

/** The verdict on one run. */
export interface DemoRunVerdict {
  outcome: DemoOutcome;
  turnsCompleted: number;
  /** The request a stuck run could not get past. */
  stuckAt?: DemoRequest;
  /** Accepted requests whose prompt the server cut, and the turn of the first. */
  truncatedRequests: number;
  firstTruncatedTurn?: number;
  /** The largest share of one prompt the server dropped (0 to 1), from what it reported keeping. */
  contextLostMax: number;
  /** The request that lost it. */
  worstTruncation?: DemoRequest;
  /** The last accepted request, when the server cut it: what the run's final answer was built on. */
  finalTruncation?: DemoRequest;
  /** Prunes and compactions the run made. */
  cuts: number;
  promptTokensSent: number;
  /** Prompt tokens sent per completed turn (undefined when no turn completed). */
  promptTokensPerTurn?: number;
}

/**
 * Both runs sent the same requests: the largest one already fit the window, so Spillway, which cuts
 * only what does not fit, left every request as it was.
 */
export interface DemoUnchanged {
  promptTokens: number;
  maxTokens?: number;
  window: number;
}

/** The verdict on the demo. */
export interface DemoVerdict {
  plain: DemoRunVerdict;
  spillway: DemoRunVerdict;
  unchanged?: DemoUnchanged;
}

/** The share of a request's prompt the server dropped (0 when it kept all of it). */
export function lostShare(request: DemoRequest): number {
  if (request.keptTokens === undefined || request.promptTokens === 0) return 0;
  return (request.promptTokens - request.keptTokens) / request.promptTokens;
}

function outcomeOf(run: DemoRun, truncated: number): DemoOutcome {
  if (run.stuck) return run.stuckAt ? 'stuck' : 'stopped';
  return truncated > 0 ? 'completed_truncated' : 'completed';
}

/** The verdict on one run, from the requests the emulator recorded. */
export function runVerdict(run: DemoRun): DemoRunVerdict {
  const truncated = run.requests.filter((request) => request.keptTokens !== undefined);
  const worst = truncated.reduce<DemoRequest | undefined>(
    (best, request) => (best === undefined || lostShare(request) > lostShare(best) ? request : best),
    undefined,
  );
  const last = run.requests.filter((request) => request.accepted).at(-1);
  return {
    outcome: outcomeOf(run, truncated.length),
    turnsCompleted: run.turnsCompleted,
    ...(run.stuckAt ? { stuckAt: run.stuckAt } : {}),
    truncatedRequests: truncated.length,
    ...(truncated[0] ? { firstTruncatedTurn: truncated[0].turn } : {}),
    contextLostMax: worst ? lostShare(worst) : 0,
    ...(worst ? { worstTruncation: worst } : {}),
    ...(last?.keptTokens === undefined ? {} : { finalTruncation: last }),
    cuts: run.prunes.length + run.compactions.length,
    promptTokensSent: run.promptTokensSent,
    ...(run.turnsCompleted > 0
      ? { promptTokensPerTurn: Math.round(run.promptTokensSent / run.turnsCompleted) }
      : {}),
  };
}

const sameRequest = (left: DemoRequest, right: DemoRequest | undefined): boolean =>
  right !== undefined &&
  left.turn === right.turn &&
  left.promptTokens === right.promptTokens &&
  left.maxTokens === right.maxTokens &&
  left.accepted === right.accepted;

/** When both runs sent exactly the same requests, the largest of them against the window. */
function unchangedBy(result: DemoResult): DemoUnchanged | undefined {
  const { plain, spillway } = result.runs;
  const same =
    plain.requests.length === spillway.requests.length &&
    plain.requests.every((request, index) => sameRequest(request, spillway.requests[index]));
  if (!same || spillway.prunes.length + spillway.compactions.length > 0) return undefined;
  const size = (request: DemoRequest) => request.promptTokens + (request.maxTokens ?? 0);
  const largest = plain.requests.reduce<DemoRequest | undefined>(
    (best, request) => (best === undefined || size(request) > size(best) ? request : best),
    undefined,
  );
  if (!largest) return undefined;
  return {
    promptTokens: largest.promptTokens,
    ...(largest.maxTokens === undefined ? {} : { maxTokens: largest.maxTokens }),
    window: result.realWindow,
  };
}

/**
 * The verdict on both runs.
 *
 * @example
 * const verdict = demoVerdict(await runDemo({ profile: 'ollama' }));
 * verdict.plain.outcome; // 'completed_truncated'
 * verdict.plain.contextLostMax; // 0.88: the server kept 4,055 of 33,679 prompt tokens
 */
export function demoVerdict(result: DemoResult): DemoVerdict {
  const unchanged = unchangedBy(result);
  return {
    plain: runVerdict(result.runs.plain),
    spillway: runVerdict(result.runs.spillway),
    ...(unchanged ? { unchanged } : {}),
  };
}
