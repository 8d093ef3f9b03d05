/**
 * @module
 * What one request taught about the model's limits, stored as evidence: each overflow the upstream
 * answered is matched with the request the proxy sent (`matchOverflow`); figures that agree become
 * the client credential's observation, figures that do not are logged and dropped. A silent
 * truncation seen in the upstream's own usage report counts as an observation too.
 */
import type { OverflowInfo } from '../core/index.js';
import { matchOverflow, type SentAttempt } from './overflow-evidence.js';
import type { Exchange, ProxyRuntime } from './proxy-runtime.js';
import type { LearnedLimitsObservation } from './proxy-state.js';
import type { UpstreamLimits } from './resolve-upstream-limits.js';

/** What one request's answers showed about the model. */
export interface LearnedEvidence {
  /** Every overflow the upstream answered, with what had been sent. */
  rejected: Array<{ overflow: OverflowInfo; sent: SentAttempt }>;
  /** The window a silent truncation in a reply's usage showed. */
  truncatedWindow?: number;
}

/** The figures a request's evidence supports (the newest answer wins), and what it could not believe. */
export function observedLimits(evidence: LearnedEvidence): {
  contextLength?: number;
  outputCap?: number;
  unmatched: string[];
} {
  const observed: { contextLength?: number; outputCap?: number; unmatched: string[] } = { unmatched: [] };
  for (const { overflow, sent } of evidence.rejected) {
    const match = matchOverflow({ overflow, sent });
    if (match.kind === 'unmatched') observed.unmatched.push(`${overflow.pattern}: ${match.reason}`);
    if (match.kind !== 'matched') continue;
    if (match.contextLength !== undefined) observed.contextLength = match.contextLength;
    if (match.outputCap !== undefined) observed.outputCap = match.outputCap;
  }
  if (evidence.truncatedWindow !== undefined)
    observed.contextLength = Math.min(
      observed.contextLength ?? Number.POSITIVE_INFINITY,
      evidence.truncatedWindow,
    );
  return observed;
}

/**
 * Stores what the evidence supports as the client credential's observation of the model, and logs
 * an overflow whose figures do not agree with the request sent (`overflow_unmatched`) and a figure
 * that became every client's (`limits_shared`).
 *
 * @example
 * await rememberLearnedLimits({ runtime, exchange, model: 'glm5.2', limits, evidence });
 */
export async function rememberLearnedLimits({
  runtime,
  exchange,
  model,
  limits,
  evidence,
}: {
  runtime: ProxyRuntime;
  exchange: Exchange;
  model: string;
  /** The limits the request was fitted with (the base of the shared figure's step cap). */
  limits: UpstreamLimits;
  evidence: LearnedEvidence;
}): Promise<void> {
  const { contextLength, outputCap, unmatched } = observedLimits(evidence);
  for (const reason of unmatched)
    runtime.log({
      level: 'warn',
      event: 'overflow_unmatched',
      model,
      message: `the upstream's overflow was not learned from: ${reason}`,
    });
  if (contextLength === undefined && outputCap === undefined) return;
  const observation: LearnedLimitsObservation = {
    credential: exchange.credential,
    ...(contextLength === undefined ? {} : { contextLength, fromContextLength: limits.contextLength }),
    ...(outputCap === undefined
      ? {}
      : { outputCap, ...(limits.outputCap === undefined ? {} : { fromOutputCap: limits.outputCap }) }),
    ...(limits.discoveredContextLength === undefined ? {} : { discovered: limits.discoveredContextLength }),
  };
  const { shared, sharedChanged } = await runtime.state.recordLearnedLimits(model, observation);
  const window = shared.contextLength?.value;
  const cap = shared.outputCap?.value;
  if (sharedChanged)
    runtime.log({
      level: 'info',
      event: 'limits_shared',
      model,
      ...(window === undefined
        ? {}
        : { context_length: window, confirmed_by: shared.contextLength?.confirmedBy }),
      ...(cap === undefined ? {} : { output_cap: cap }),
    });
}
