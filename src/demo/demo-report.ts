import { type LimitsReport, limitsReport } from '../models/index.js';
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

/**
 * `spillway demo --json`: `{"profile":P,"turns":N,"runs":{"plain":R,"spillway":R},"limits":L,"learned":[…]}`,
 * where `limits` is what `spillway limits` prints for the Spillway run's start and `learned` the
 * windows rejections stated during it.
 */
export interface DemoReport {
  profile: string;
  turns: number;
  runs: { plain: DemoRunReport; spillway: DemoRunReport };
  limits: LimitsReport;
  learned: DemoLearned[];
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
 * started from, each with its source, and what it learned during the run.
 *
 * @example
 * printJson(demoReport(await runDemo()));
 */
export function demoReport(result: DemoResult): DemoReport {
  return {
    profile: result.profile,
    turns: result.turns,
    runs: { plain: runReport(result.runs.plain), spillway: runReport(result.runs.spillway) },
    limits: limitsReport(result.limits),
    learned: result.learned,
  };
}
