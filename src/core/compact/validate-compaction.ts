/**
 * @module
 * `validateCompaction`: whether a compacted transcript can replace the original.
 */
import { type Message, validatePairing } from '../transcript/index.js';

/** Why a compaction was rejected. */
export type CompactionIssueCode = 'empty' | 'no_op' | 'broken_pairing' | 'larger' | 'over_budget';

/** The outcome of {@link validateCompaction}. */
export type CompactionValidation =
  | { ok: true; estimate: number }
  | { ok: false; code: CompactionIssueCode; message: string; estimate?: number };

/** Inputs of {@link validateCompaction}. */
export interface ValidateCompactionOptions {
  before: readonly Message[];
  after: readonly Message[];
  /** Prompt tokens the result must fit in. */
  budget: number;
  /** Estimated prompt tokens of a transcript sent with the request's tools (calibrated). */
  estimate: (messages: readonly Message[]) => number;
}

function sameMessage(a: Message, b: Message): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Checks a compacted transcript, in this order: `empty` (nothing but system messages left),
 * `no_op` (the same messages), `broken_pairing` (a tool result without its call, or a call without
 * its result before the newest turn), `larger` (more tokens than the original), `over_budget` (smaller
 * but still over the budget: a result the next recovery step can build on). Returns a value; never
 * throws.
 *
 * @example
 * const check = validateCompaction({ before, after, budget, estimate: (m) => manager.measure({ ...request, messages: m }).estimate });
 * if (!check.ok && check.code !== 'over_budget') rollBack();
 */
export function validateCompaction({
  before,
  after,
  budget,
  estimate,
}: ValidateCompactionOptions): CompactionValidation {
  if (after.every((message) => message.role === 'system'))
    return {
      ok: false,
      code: 'empty',
      message: 'the compacted transcript holds no conversation; keep at least the newest turn',
    };
  if (
    after.length === before.length &&
    after.every((message, index) => sameMessage(message, before[index] as Message))
  )
    return {
      ok: false,
      code: 'no_op',
      message: 'the compaction changed nothing; there is no older history to compact',
    };
  const pairing = validatePairing(after);
  if (!pairing.ok)
    return {
      ok: false,
      code: 'broken_pairing',
      message: `the compacted transcript breaks tool-call pairing: ${pairing.issues[0]?.message}`,
    };
  const original = estimate(before);
  const result = estimate(after);
  if (result > original)
    return {
      ok: false,
      code: 'larger',
      message: `the compacted transcript needs about ${result} tokens, more than the ${original} of the original`,
      estimate: result,
    };
  if (result > budget)
    return {
      ok: false,
      code: 'over_budget',
      message: `the compacted transcript needs about ${result} tokens, over the ${budget}-token budget`,
      estimate: result,
    };
  return { ok: true, estimate: result };
}
