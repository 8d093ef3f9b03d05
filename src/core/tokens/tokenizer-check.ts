/**
 * @module
 * Whether a local tokenizer counts as the provider does. A tokenizer chosen by model id is a guess: a
 * server that serves the id `qwen` may count with o200k, and on digit-heavy logs the two differ by a
 * third. It is trusted only once its counts of the first requests agree with the prompt tokens the
 * provider reported for them, checked against every report after, and demoted for good (for that
 * upstream and model) when one disagrees.
 */

/** `unverified`: not compared yet; `verified`: agreed with the provider; `demoted`: disagreed. */
export type TokenizerStatus = 'unverified' | 'verified' | 'demoted';

/** What the reports so far say of a tokenizer: plain data, kept with the model's calibration. */
export interface TokenizerCheck {
  status: TokenizerStatus;
  /** Reports compared (once verified, counted only when one widens the spread). */
  reports: number;
  /** The largest relative difference seen between the tokenizer's count and the provider's. */
  worst: number;
  /** The comparison that settled the status, or last widened the spread. */
  last?: { counted: number; reported: number };
}

/** A tokenizer agrees with a report when its count is within this share of it (or the slack below). */
export const TOKENIZER_AGREEMENT = 0.05;

/**
 * Tokens a count may differ from a report and still agree, whatever the share: the chat template
 * Spillway models around messages and tool schemas differs from a server's by tens of tokens.
 */
export const TOKENIZER_SLACK_TOKENS = 64;

/** Agreeing reports that make a tokenizer trusted. */
export const REPORTS_TO_VERIFY = 2;

/** The least relative error a verified tokenizer's count is taken to have (the template around it). */
export const MIN_TOKENIZER_SPREAD = 0.02;

/** A tokenizer nothing has been compared with yet. */
export function createTokenizerCheck(): TokenizerCheck {
  return { status: 'unverified', reports: 0, worst: 0 };
}

/**
 * Folds one comparison in: the tokenizer counted `counted` prompt tokens for a request the provider
 * reported `reported` for. A disagreement demotes it, before or after it was verified (a template
 * difference can grow with the conversation: call ids a server does not render, say);
 * {@link REPORTS_TO_VERIFY} agreements verify it, and each later one widens its spread to what it
 * showed. A demoted tokenizer is never asked again.
 *
 * @example
 * checkTokenizer(createTokenizerCheck(), { counted: 7_132, reported: 5_359 }).status; // 'demoted'
 */
export function checkTokenizer(
  check: TokenizerCheck,
  { counted, reported }: { counted: number; reported: number },
): TokenizerCheck {
  if (check.status === 'demoted') return check;
  if (!(counted > 0) || !(reported > 0) || !Number.isFinite(counted) || !Number.isFinite(reported))
    return check;
  const difference = Math.abs(counted - reported);
  const worst = Math.max(check.worst, difference / reported);
  const reports = check.reports + 1;
  const last = { counted, reported };
  if (difference > Math.max(TOKENIZER_AGREEMENT * reported, TOKENIZER_SLACK_TOKENS))
    return { status: 'demoted', reports, worst, last };
  // A verified tokenizer's state changes only with its spread: what is stored stays put meanwhile.
  if (check.status === 'verified' && worst === check.worst) return check;
  return { status: reports >= REPORTS_TO_VERIFY ? 'verified' : 'unverified', reports, worst, last };
}

/** The relative error a verified tokenizer's counts are taken to have: what the reports showed. */
export function tokenizerSpread(check: TokenizerCheck): number {
  return Math.max(MIN_TOKENIZER_SPREAD, check.worst);
}

/** A check read back from storage; anything malformed is a fresh check (never trusted by mistake). */
export function parseTokenizerCheck(value: unknown): TokenizerCheck {
  if (typeof value !== 'object' || value === null) return createTokenizerCheck();
  const { status, reports, worst, last } = value as Partial<TokenizerCheck>;
  if (
    (status !== 'unverified' && status !== 'verified' && status !== 'demoted') ||
    typeof reports !== 'number' ||
    !Number.isInteger(reports) ||
    reports < 0 ||
    typeof worst !== 'number' ||
    !(worst >= 0) ||
    (status === 'verified' && reports < REPORTS_TO_VERIFY)
  )
    return createTokenizerCheck();
  const lastOk =
    typeof last === 'object' && last !== null && last.counted > 0 && last.reported > 0 ? { last } : {};
  return { status, reports, worst, ...lastOk };
}

/** The tokenizer disagreed with the provider: it is not used for this model again. */
export interface TokenizerDemotedNotice {
  code: 'tokenizer_demoted';
  level: 'info';
  message: string;
  model?: string;
  /** The tokenizer's name, as its counter gives it. */
  tokenizer: string;
  counted: number;
  reported: number;
}

/** The notice for a tokenizer whose count disagreed with the provider's report. */
export function tokenizerDemotedNotice({
  check,
  tokenizer,
  model,
}: {
  check: TokenizerCheck;
  tokenizer: string;
  model?: string;
}): TokenizerDemotedNotice {
  const counted = check.last?.counted ?? 0;
  const reported = check.last?.reported ?? 0;
  const who = model === undefined ? 'the provider' : `the provider serving ${model}`;
  return {
    code: 'tokenizer_demoted',
    level: 'info',
    message: `the ${tokenizer} tokenizer counted ${counted} prompt tokens for a request ${who} counted at ${reported}: it is not the provider's tokenizer, so Spillway counts from the provider's reports and its estimate instead`,
    ...(model === undefined ? {} : { model }),
    tokenizer,
    counted,
    reported,
  };
}
