import { type ChatRequest, CLAMP_MARGIN, ContextTruncatedError, MIN_CLAMPED_OUTPUT } from '../core/index.js';
import type { LoopRecover } from '../loop/index.js';

/**
 * The overflow recovery the chat uses while core has no `recoverFromOverflow`: the tool loop has
 * already learned the window the error stated, so
 * - `budget` (the prompt fits, prompt + `max_tokens` does not): the same messages with
 *   `max_tokens = window - input - 512`, when that leaves at least 1,024 tokens; never pruned;
 * - `output_cap`: the same request with `max_tokens` lowered to the limit the error states;
 * - `context`, or a budget overflow with no room left: the whole history fitted again against the
 *   learned window, which prunes the oldest turns.
 * When nothing would change (the error stated no window), it gives up and the conversation is kept.
 *
 * @example
 * await runToolLoop({ client, manager, messages, recover: refitAfterOverflow });
 */
export const refitAfterOverflow: LoopRecover = async ({ request, history, overflow, manager }) => {
  if (overflow.kind === 'budget' && overflow.window !== undefined && overflow.input !== undefined) {
    const room = overflow.window - overflow.input - CLAMP_MARGIN;
    if (room >= MIN_CLAMPED_OUTPUT)
      return {
        action: 'lower_max_tokens',
        request: { ...request, maxTokens: room },
        removed: [],
        steps: [`max_tokens ${request.maxTokens ?? 'unset'} → ${room} (the window is ${overflow.window})`],
      };
  }
  if (overflow.kind === 'output_cap') {
    const limit = overflow.outputLimit;
    if (limit !== undefined && (request.maxTokens === undefined || limit < request.maxTokens))
      return {
        action: 'lower_output_cap',
        request: { ...request, maxTokens: limit },
        removed: [],
        steps: [`max_tokens ${request.maxTokens ?? 'unset'} → ${limit} (the model's output limit)`],
      };
    return giveUp(
      'the provider rejected the reply cap and stated no lower limit; set output_cap in the config',
    );
  }
  const full: ChatRequest = { ...request, messages: history };
  delete full.maxTokens;
  try {
    const fit = manager.fit(full);
    const unchanged =
      fit.request.maxTokens === request.maxTokens &&
      JSON.stringify(fit.request.messages) === JSON.stringify(request.messages);
    if (unchanged)
      return giveUp(
        `the provider rejected the request (${overflow.kind}) without saying how large its window is; set context_length in the config`,
      );
    return {
      action: 'refit',
      request: fit.request,
      removed: [],
      steps: [
        `fitted again to the ${fit.window}-token window${fit.droppedTurns > 0 ? `: ${fit.droppedTurns} older turns left out of the request` : ''}`,
      ],
    };
  } catch (error) {
    if (ContextTruncatedError.isInstance(error)) return giveUp(error.message);
    throw error;
  }
};

function giveUp(message: string): Awaited<ReturnType<LoopRecover>> {
  return { action: 'give_up', removed: [], steps: [], message };
}

/**
 * The recovery to run the loop with: `undefined` (the loop's default, core's escalation chain) when
 * this build of core exports `recoverFromOverflow`, else {@link refitAfterOverflow}.
 *
 * @example
 * const recover = await chatOverflowRecovery();
 * await runToolLoop({ client, manager, messages, ...(recover ? { recover } : {}) });
 */
export async function chatOverflowRecovery(): Promise<LoopRecover | undefined> {
  const core = (await import('../core/index.js')) as unknown as { recoverFromOverflow?: LoopRecover };
  return core.recoverFromOverflow ? undefined : refitAfterOverflow;
}
