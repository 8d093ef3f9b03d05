/**
 * @module
 * Checks that hold between keys of a configuration, where each key is valid alone: a reply reserve
 * that leaves the window no room for a prompt would start fine and then fail every request, so it
 * fails at startup instead, naming both keys.
 */
import { computeBudget, DEFAULT_SAFETY_RATIO, SpillwayError } from '../core/index.js';

/** A window and a reserve, with the config paths they came from. */
export interface ReserveInWindow {
  contextLength: number | undefined;
  reserve: number | undefined;
  safetyRatio?: number | undefined;
  /** Paths as the file spells them: `{ contextLength: 'context_length', reserve: 'models["glm5.2"].reserve' }`. */
  paths: { contextLength: string; reserve: string };
  /** Prefixed to the message (the file). */
  prefix?: string;
}

/**
 * Throws `invalid_config` when `reserve` leaves no prompt budget in `contextLength` (window − reserve
 * − the safety margin ≤ 0), naming both keys and the largest reserve that would work.
 *
 * @example
 * checkReserveInWindow({ contextLength: 1_000, reserve: 100_000, paths: { contextLength: 'context_length', reserve: 'reserve' } });
 * // SpillwayError invalid_config: 'reserve (100000) leaves no room for a prompt in context_length (1000): …'
 */
export function checkReserveInWindow({
  contextLength,
  reserve,
  safetyRatio = DEFAULT_SAFETY_RATIO,
  paths,
  prefix = '',
}: ReserveInWindow): void {
  if (contextLength === undefined || reserve === undefined) return;
  const { budget, safety } = computeBudget({ contextLength, reserve, safetyRatio });
  if (budget > 0) return;
  const largest = contextLength - safety - 1;
  throw new SpillwayError(
    'invalid_config',
    `${prefix}${paths.reserve} (${reserve}) leaves no room for a prompt in ${paths.contextLength} (${contextLength}): ${contextLength} − ${reserve} − ${safety} (safety margin) = ${budget} tokens; ${largest > 0 ? `set ${paths.reserve} below ${largest + 1}, or raise ${paths.contextLength}` : `raise ${paths.contextLength}`}`,
    { data: { path: paths.reserve, conflictsWith: paths.contextLength } },
  );
}
