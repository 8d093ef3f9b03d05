/**
 * @module
 * `recoverFromOverflow`: what to send after a provider rejected a request as too large, per
 * overflow kind. The prompt that does not fit goes to the escalation chain (`context-chain.ts`).
 */
import { CLAMP_MARGIN, FALLBACK_CONTEXT_LENGTH, MIN_CLAMPED_OUTPUT } from '../budget/index.js';
import { SpillwayError } from '../errors/index.js';
import { ContextWindowManager } from '../manager/index.js';
import {
  OVERFLOW_KINDS,
  type OverflowInfo,
  windowCheckFromOverflow,
  windowFromOverflow,
} from '../overflow/index.js';
import { requireChatRequest, requireMessages } from '../transcript/index.js';
import { contextChain } from './context-chain.js';
import { type RecoveryContext, statesLowerBound, tryFit } from './recovery-context.js';
import type { RecoverFromOverflowOptions, RecoveryResult } from './recovery-result.js';

/**
 * Recovers from an overflow, once per turn. Per kind:
 * - `budget` (the prompt fits, prompt + `max_tokens` does not): the same request with
 *   `max_tokens = window - input - 512`, where the input is the count the provider stated (the
 *   estimate only when it stated none); never compacts. When that leaves less than 1,024 tokens for
 *   the reply, it is treated as `context`.
 * - `output_cap`: the cap the error states, learned for the model (only ever lowered), and the same
 *   request with `max_tokens` at most that. vLLM's "max_tokens=X cannot be greater than
 *   max_model_len=W" states the window, not a cap: the window is learned and `max_tokens` lowered to
 *   the room the prompt leaves in it.
 * - `context`: the escalation chain (see `contextChain`).
 *
 * Recovery learns the window the overflow states (`manager.learnWindow`); callers need not. Send
 * `result.request` once; continue with `result.messages` when present, and write `result.removed` to
 * the store. When the retry fails too, the turn fails: the compaction stays.
 *
 * @example
 * const recovery = await recoverFromOverflow({ request, overflow: error.overflow, manager, summarize });
 * if (recovery.action === 'give_up') throw recovery.error ?? new Error(recovery.message);
 * if ('messages' in recovery) history = recovery.messages;
 * response = await client.send(recovery.request);
 */
export async function recoverFromOverflow(options: RecoverFromOverflowOptions): Promise<RecoveryResult> {
  const context = createContext(options);
  const { overflow } = context;
  calibrateFromStatedInput(context);
  if (overflow.kind === 'none')
    return context.finish({
      action: 'give_up',
      reason: 'not_overflow',
      message: `the rejection is not an overflow (${overflow.pattern}); recovery only handles context, budget and output_cap rejections`,
    });
  if (overflow.kind === 'output_cap' && overflow.outputLimit === undefined && overflow.window !== undefined)
    return recoverModelLengthCap(context, overflow.window);
  if (overflow.kind === 'output_cap') return recoverOutputCap(context);
  if (overflow.kind === 'budget') return recoverBudget(context);
  learnStatedWindow(context);
  learnFromFigurelessRejection(context);
  return contextChain(context);
}

/** What recovery needs, checked: a clear error for a call from plain JavaScript that lacks it. */
function requireOptions(options: RecoverFromOverflowOptions): void {
  const value = options as unknown as Record<string, unknown> | null;
  const overflow = value?.overflow as Record<string, unknown> | null | undefined;
  const missing =
    typeof value !== 'object' || value === null
      ? 'an options object'
      : !(value.manager instanceof ContextWindowManager)
        ? 'options.manager (a ContextWindowManager)'
        : typeof overflow !== 'object' ||
            overflow === null ||
            !OVERFLOW_KINDS.includes(overflow.kind as OverflowInfo['kind'])
          ? 'options.overflow (classifyOverflow of the rejection)'
          : undefined;
  if (missing !== undefined)
    throw new SpillwayError(
      'invalid_argument',
      `recoverFromOverflow needs ${missing}: pass { request, overflow, manager }`,
    );
  requireChatRequest(value?.request, 'recoverFromOverflow');
  if (value?.history !== undefined) requireMessages(value.history, 'recoverFromOverflow history');
}

function createContext(options: RecoverFromOverflowOptions): RecoveryContext {
  requireOptions(options);
  const { overflow, manager } = options;
  const base = options.history ? { ...options.request, messages: options.history } : options.request;
  const stated = windowFromOverflow(overflow);
  const context: RecoveryContext = {
    options,
    manager,
    overflow,
    base,
    model: base.model ?? manager.model,
    steps: [],
    finish: (result) =>
      ({ ...result, steps: context.steps, ...(stated === undefined ? {} : { window: stated }) }) as never,
    ...(stated === undefined ? {} : { stated }),
  };
  return context;
}

/** The window the overflow states, learned for the model. */
function learnStatedWindow(context: RecoveryContext): void {
  const { stated, model, manager, overflow } = context;
  if (stated === undefined || model === undefined) return;
  manager.learnWindow(model, stated);
  const check = windowCheckFromOverflow(overflow);
  if (check !== undefined) manager.learnWindowCheck(model, check);
  context.steps.push({ step: 'learn_window', model, window: stated });
}

/**
 * A provider that stated a prompt count above Spillway's estimate raises the calibration. Only a
 * stated figure does: a count assumed from the window would blame the counter for what may be a
 * wrong window (see {@link learnFromFigurelessRejection}).
 */
function calibrateFromStatedInput(context: RecoveryContext): void {
  const { overflow, manager, options, base } = context;
  if (overflow.units === 'characters' || overflow.kind === 'none' || overflow.input === undefined) return;
  const sent = options.history ? options.request : tryFit(manager, base)?.request;
  if (sent === undefined) return;
  const estimated = manager.measure(sent).estimate;
  if (overflow.input <= estimated) return;
  manager.calibrateFromCount({ request: sent, promptTokens: overflow.input });
  context.steps.push({ step: 'calibrate', reported: overflow.input, estimated });
}

/**
 * Share of the least the rejected prompt counted that a rejection without figures leaves as the
 * window, at most: such a rejection says only that the window is smaller than what was sent.
 */
export const FIGURELESS_WINDOW_SHARE = 0.5;

/**
 * A context rejection with no figure, of a request whose count was within the window believed: the
 * window is what was wrong, not the count, and it is not known. It is learned as what Spillway
 * assumes when nothing states a window ({@link FALLBACK_CONTEXT_LENGTH}), or half the least the
 * prompt counted when that is smaller (a trusted count where the caller had one, else the
 * estimate's lower bound): a window believed far too large (a catalog's 128k for a server's 8k) is
 * then corrected in one rejection, and any later stated figure replaces the guess. A rejection of a
 * request only the estimate doubted says nothing new: the chain cuts it to the budget.
 */
function learnFromFigurelessRejection(context: RecoveryContext): void {
  const { overflow, manager, model, stated, options, base } = context;
  if (overflow.kind !== 'context' || overflow.input !== undefined || stated !== undefined) return;
  if (overflow.units === 'characters' || model === undefined) return;
  const window = manager.windowFor(model);
  const sent = options.history ? options.request : tryFit(manager, base)?.request;
  if (sent === undefined) return;
  const measure = manager.measure(sent);
  const count = options.promptCount ?? { low: measure.low, trusted: false };
  // Within the window believed, with a reply's room left: the rejection contradicts the window.
  if (window !== undefined && count.low + measure.reserve > window) return;
  const learned = Math.min(FALLBACK_CONTEXT_LENGTH, Math.floor(count.low * FIGURELESS_WINDOW_SHARE));
  if (!(learned > 0) || (window !== undefined && learned >= window)) return;
  manager.learnWindow(model, learned);
  context.steps.push({
    step: 'learn_window_from_count',
    model,
    window: learned,
    prompt: count.low,
    count: count.trusted ? 'trusted' : 'estimate',
  });
}

/** `budget`: the same prompt, `max_tokens` lowered to the room the stated input leaves. */
function recoverBudget(context: RecoveryContext): Promise<RecoveryResult> | RecoveryResult {
  const { manager, base, overflow, stated } = context;
  // Fitted as it was sent (before the window is learned), so the prompt stays the one rejected.
  const sent = tryFit(manager, base);
  learnStatedWindow(context);
  if (sent === undefined) {
    context.steps.push({ step: 'treat_as_context', reason: 'does_not_fit_window' });
    return contextChain(context);
  }
  const window = stated ?? sent.window;
  // Current vLLM tokenizes with truncation at W - B + 1 and states that lower bound, not the
  // prompt: then the fitted count (anchored where it can be) is the better figure when larger.
  const lowerBound = statesLowerBound(overflow);
  const input =
    overflow.input === undefined
      ? sent.estimate
      : lowerBound
        ? Math.max(overflow.input, sent.estimate)
        : overflow.input;
  const from = sent.request.maxTokens;
  // What the wire carried beyond the request's max_tokens (the AI SDK adds Anthropic's thinking
  // budget to it): the stated output figure says how much, and the new value leaves room for it.
  const added = overflow.output !== undefined && from !== undefined ? Math.max(0, overflow.output - from) : 0;
  const room = window - input - CLAMP_MARGIN - added;
  if (room < MIN_CLAMPED_OUTPUT) {
    context.steps.push({ step: 'treat_as_context', reason: 'no_room_for_reply' });
    return contextChain(context);
  }
  const to = Math.min(room, from ?? room);
  context.steps.push({
    step: 'lower_max_tokens',
    ...(from === undefined ? {} : { from }),
    to,
    window,
    input,
    inputSource:
      overflow.input === undefined || (lowerBound && input > overflow.input)
        ? 'estimate'
        : lowerBound
          ? 'lower_bound'
          : 'stated',
  });
  return context.finish({ action: 'lower_max_tokens', request: { ...sent.request, maxTokens: to } });
}

/** vLLM's max_tokens-over-max_model_len: learn the window, ask for at most the room left in it. */
function recoverModelLengthCap(
  context: RecoveryContext,
  window: number,
): Promise<RecoveryResult> | RecoveryResult {
  const { manager, base, model, overflow } = context;
  if (model !== undefined) manager.learnWindow(model, window);
  context.steps.push({ step: 'learn_window_from_cap', window });
  // The rejected max_tokens does not fit the learned window: fit without it, then ask for the room.
  const { maxTokens: rejected, ...unbounded } = base;
  const refit = tryFit(manager, unbounded);
  if (refit !== undefined) {
    const room = refit.window - refit.estimate - CLAMP_MARGIN;
    const requested = rejected ?? overflow.output;
    const to = Math.min(requested ?? room, room);
    if (to >= 1) {
      context.steps.push({
        step: 'lower_max_tokens',
        ...(requested === undefined ? {} : { from: requested }),
        to,
        window: refit.window,
        input: refit.estimate,
        inputSource: 'estimate',
      });
      return context.finish({ action: 'lower_max_tokens', request: { ...refit.request, maxTokens: to } });
    }
  }
  context.steps.push({ step: 'treat_as_context', reason: 'no_room_for_reply' });
  return contextChain(context);
}

/** `output_cap`: the stated cap learned (only ever lowered), `max_tokens` at most that. */
function recoverOutputCap(context: RecoveryContext): Promise<RecoveryResult> | RecoveryResult {
  const { manager, base, overflow, model } = context;
  const sent = tryFit(manager, base);
  if (sent === undefined) {
    context.steps.push({ step: 'treat_as_context', reason: 'does_not_fit_window' });
    learnStatedWindow(context);
    return contextChain(context);
  }
  const current = sent.request.maxTokens ?? overflow.output;
  const limit = overflow.outputLimit ?? overflow.window;
  const cap =
    limit !== undefined
      ? Math.min(limit, (current ?? limit + 1) - 1)
      : Math.floor((current ?? 2 * 1_024) / 2);
  if (!(cap >= 1))
    return context.finish({
      action: 'give_up',
      reason: 'every_cap_rejected',
      message: 'the provider rejects every output cap; check the model id',
    });
  if (model !== undefined) manager.learnOutputCap(model, cap);
  const room = sent.window - sent.estimate - CLAMP_MARGIN;
  const to = room >= MIN_CLAMPED_OUTPUT ? Math.min(cap, room) : cap;
  context.steps.push({
    step: 'lower_output_cap',
    ...(current === undefined ? {} : { from: current }),
    to,
    cap,
  });
  return context.finish({ action: 'lower_output_cap', request: { ...sent.request, maxTokens: to } });
}
