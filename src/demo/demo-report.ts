import { type LimitsReport, limitsReport } from '../models/index.js';
import { type DemoOutcome, type DemoRunVerdict, type DemoVerdict, demoVerdict } from './demo-verdict.js';
import type { DemoLearned, DemoResult } from './run-demo.js';
import type { DemoRun } from './run-demo-session.js';

/** One run in the machine-readable report: exactly these keys. */
export interface DemoRunReport {
  turns_completed: number;
  stuck: boolean;
  overflows: { context: number; budget: number; output_cap: number };
  recoveries: number;
  provider_calls: number;
  prompt_tokens_max: number;
}

/** The verdict on one run in the machine-readable report. */
export interface DemoRunVerdictReport {
  outcome: DemoOutcome;
  stuck_at_turn?: number;
  /** Accepted requests whose prompt the server cut without an error. */
  truncated_prompts: number;
  /** The largest share of one prompt the server dropped, 0 to 1 (three decimals). */
  context_lost_max: number;
  worst_truncation?: { turn: number; prompt_tokens: number; kept_tokens: number };
  cuts: number;
  prompt_tokens_sent: number;
  prompt_tokens_per_completed_turn?: number;
}

/** `verdict` in the machine-readable report. */
export interface DemoVerdictReport {
  plain: DemoRunVerdictReport;
  spillway: DemoRunVerdictReport;
  /** Present when both runs sent the same requests: the largest of them and the window it fit. */
  unchanged?: { prompt_tokens: number; max_tokens?: number; window: number };
}

/**
 * `spillway demo --json`: `{"profile":P,"turns":N,"runs":{"plain":R,"spillway":R},"limits":L,"learned":[…],"verdict":V}`,
 * where `limits` is what `spillway limits` prints for the Spillway run's start, `learned` the
 * windows rejections stated during it and `verdict` what each run came to.
 */
export interface DemoReport {
  profile: string;
  turns: number;
  runs: { plain: DemoRunReport; spillway: DemoRunReport };
  limits: LimitsReport;
  learned: DemoLearned[];
  verdict: DemoVerdictReport;
}

function runVerdictReport(verdict: DemoRunVerdict): DemoRunVerdictReport {
  const worst = verdict.worstTruncation;
  return {
    outcome: verdict.outcome,
    ...(verdict.stuckAt ? { stuck_at_turn: verdict.stuckAt.turn } : {}),
    truncated_prompts: verdict.truncatedRequests,
    context_lost_max: Math.round(verdict.contextLostMax * 1_000) / 1_000,
    ...(worst?.keptTokens === undefined
      ? {}
      : {
          worst_truncation: {
            turn: worst.turn,
            prompt_tokens: worst.promptTokens,
            kept_tokens: worst.keptTokens,
          },
        }),
    cuts: verdict.cuts,
    prompt_tokens_sent: verdict.promptTokensSent,
    ...(verdict.promptTokensPerTurn === undefined
      ? {}
      : { prompt_tokens_per_completed_turn: verdict.promptTokensPerTurn }),
  };
}

function verdictReport(verdict: DemoVerdict): DemoVerdictReport {
  const same = verdict.unchanged;
  return {
    plain: runVerdictReport(verdict.plain),
    spillway: runVerdictReport(verdict.spillway),
    ...(same
      ? {
          unchanged: {
            prompt_tokens: same.promptTokens,
            ...(same.maxTokens === undefined ? {} : { max_tokens: same.maxTokens }),
            window: same.window,
          },
        }
      : {}),
  };
}

function runReport(run: DemoRun): DemoRunReport {
  return {
    turns_completed: run.turnsCompleted,
    stuck: run.stuck,
    overflows: {
      context: run.overflows.context,
      budget: run.overflows.budget,
      output_cap: run.overflows.output_cap,
    },
    recoveries: run.recoveries,
    provider_calls: run.providerCalls,
    prompt_tokens_max: run.promptTokensMax,
  };
}

/**
 * The report scripts read: per run, turns completed, whether it got stuck, overflows by kind,
 * recoveries, provider calls and the largest prompt the backend accepted; the limits Spillway
 * started from, each with its source, and what it learned during the run; then the verdict.
 *
 * @example
 * printJson(demoReport(await runDemo()));
 */
export function demoReport(result: DemoResult, verdict: DemoVerdict = demoVerdict(result)): DemoReport {
  return {
    profile: result.profile,
    turns: result.turns,
    runs: { plain: runReport(result.runs.plain), spillway: runReport(result.runs.spillway) },
    limits: limitsReport(result.limits),
    learned: result.learned,
    verdict: verdictReport(verdict),
  };
}
