/**
 * @module
 * Which local counter a manager may rest a decision on: one the caller vouches for (`exact`), or the
 * model's tokenizer (`tokenizer`) once its counts of the first requests agreed with the provider's
 * reports, while every later one agrees too. The verification state lives in the calibration, kept
 * per model.
 */
import {
  type Calibration,
  checkTokenizer,
  createTokenizerCheck,
  type EstimateCache,
  type TokenizerCheck,
  tokenizerSpread,
} from '../tokens/index.js';
import type { ChatRequest, Message } from '../transcript/index.js';
import type { TrustedCounter } from './request-count.js';
import type { SentRequest } from './sent-request.js';

/** The local counters a manager was given. */
export interface LocalCounters {
  /** Trusted from the first send. */
  exact?: EstimateCache | undefined;
  /** Trusted once verified against the provider's reports. */
  tokenizer?: EstimateCache | undefined;
}

/** What the reports showed of the tokenizer so far. */
export function tokenizerCheckOf(calibration: Calibration): TokenizerCheck {
  return calibration.tokenizer ?? createTokenizerCheck();
}

/** The counter trusted to count as the provider does, if any. */
export function trustedCounter(
  counters: LocalCounters,
  calibration: Calibration,
): TrustedCounter | undefined {
  if (counters.exact) return { cache: counters.exact, spread: 0 };
  const check = tokenizerCheckOf(calibration);
  if (counters.tokenizer && check.status === 'verified')
    return { cache: counters.tokenizer, spread: tokenizerSpread(check) };
  return undefined;
}

/** A sent request's messages and tools, as counters take them. */
export function asRequest(sent: SentRequest): Pick<ChatRequest, 'messages' | 'tools'> {
  return { messages: sent.messages as Message[], tools: sent.tools };
}

/**
 * A count of the last request by a local counter, trusted or not (a tokenizer not yet verified is
 * evidence up to the spread between families), for the silent-truncation check.
 */
export function localCount(
  counters: LocalCounters,
  calibration: Calibration,
  sent: SentRequest,
): { tokens: number; spread: number; verified: boolean } | undefined {
  const trusted = trustedCounter(counters, calibration);
  if (trusted)
    return { tokens: trusted.cache.request(asRequest(sent)).total, spread: trusted.spread, verified: true };
  if (counters.tokenizer === undefined || tokenizerCheckOf(calibration).status === 'demoted')
    return undefined;
  return { tokens: counters.tokenizer.request(asRequest(sent)).total, spread: 0, verified: false };
}

/**
 * The tokenizer compared with one report, until it is demoted: the next check, or `undefined` when
 * there is nothing to compare (no tokenizer, a vouched-for counter, content a count cannot bound).
 */
export function verifyTokenizer(
  counters: LocalCounters,
  calibration: Calibration,
  { sent, reported }: { sent: SentRequest; reported: number },
): TokenizerCheck | undefined {
  if (counters.tokenizer === undefined || counters.exact !== undefined || !sent.countable) return undefined;
  const check = tokenizerCheckOf(calibration);
  if (check.status === 'demoted') return undefined;
  return checkTokenizer(check, { counted: counters.tokenizer.request(asRequest(sent)).total, reported });
}
