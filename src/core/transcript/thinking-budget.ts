/**
 * @module
 * Anthropic's extended thinking next to a lowered `max_tokens`. The API rejects a request whose
 * `thinking.budget_tokens` is below 1,024 or not below `max_tokens` (Anthropic, "Building with
 * extended thinking": "budget_tokens … must be set to a value less than max_tokens", minimum 1,024),
 * so a reply cap lowered to fit the window must take the budget down with it.
 */
import { isRecord } from './wire.js';

/** The smallest `thinking.budget_tokens` the Anthropic API accepts (extended-thinking docs). */
export const MIN_THINKING_BUDGET = 1_024;

/**
 * The `thinking` field to send with `maxTokens`: unchanged when its budget is already below the cap
 * (or it has none, as `{"type":"adaptive"}` and `{"type":"disabled"}`); the budget lowered to
 * `maxTokens - 1` when that is still at least {@link MIN_THINKING_BUDGET}; `undefined` (thinking
 * dropped for this request) when the cap leaves no room for the smallest budget. Raising
 * `max_tokens` instead is not an option: the cap was lowered because the window has no more room.
 *
 * @example
 * fitThinkingBudget({ type: 'enabled', budget_tokens: 31_999 }, 20_000); // { type: 'enabled', budget_tokens: 19_999 }
 * fitThinkingBudget({ type: 'enabled', budget_tokens: 4_000 }, 900); // undefined
 */
export function fitThinkingBudget(thinking: unknown, maxTokens: number): unknown {
  if (!isRecord(thinking) || thinking.type !== 'enabled') return thinking;
  const budget = thinking.budget_tokens;
  if (typeof budget !== 'number' || budget < maxTokens) return thinking;
  if (maxTokens - 1 < MIN_THINKING_BUDGET) return undefined;
  return { ...thinking, budget_tokens: maxTokens - 1 };
}
