/**
 * @module
 * `recoverFromOverflow`: what to send after a provider rejected a request as too large, per
 * overflow kind, with an escalation chain for the prompt that does not fit.
 */
import { CLAMP_MARGIN, MIN_CLAMPED_OUTPUT } from '../budget/index.js';
import { type CompactionResult, type RecallSpan, validateCompaction } from '../compact/index.js';
import { ContextTruncatedError } from '../errors/index.js';
import type { ContextWindowManager, FitResult, RequestMeasure } from '../manager/index.js';
import { windowFromOverflow } from '../overflow/index.js';
import { ESTIMATE_OVERCOUNT_CEILING } from '../tokens/index.js';
import type { ChatRequest, Message } from '../transcript/index.js';
import type { RecoverFromOverflowOptions, RecoveryAction, RecoveryResult } from './recovery-result.js';
import { explainFloor, smallestTranscript } from './smallest-request.js';
import { fallbackToNewest, type TranscriptCut, truncateTranscript } from './truncate-transcript.js';

/**
 * Recovers from an overflow, once per turn. Per kind:
 * - `budget` (the prompt fits, prompt + `max_tokens` does not): the same request with
 *   `max_tokens = window - input - 512`, from the error's figures (the input is never taken below
 *   Spillway's own estimate); never compacts. When that leaves less than 1,024 tokens for the reply,
 *   it is treated as `context`.
 * - `output_cap`: the cap the error states, learned for the model (only ever lowered), and the same
 *   request with `max_tokens` at most that.
 * - `context`: the escalation chain, each step validated, a smaller-but-still-over result kept for
 *   the next step, a broken one dropped: compaction (with `summarize`) → the same with a smaller kept
 *   tail, halving down to one turn → forced prune (every tool result outside the newest run stubbed)
 *   → hard truncation (a marker and the newest whole turns that fit) → the non-LLM fallback down to
 *   the newest pairing-safe unit.
 *
 * Before the chain, the smallest request there can be (system prompt, tool schemas, newest message)
 * is measured: when even that does not fit, the result is `give_up` with a `context_truncated` error
 * that says what to change, and the history is left alone.
 *
 * Recovery learns the window the overflow states (`manager.learnWindow`); callers need not. Send
 * `result.request` once; continue with `result.messages` when present, and write `result.removed` to
 * the store with `applyCompaction`. When the retry fails too, the turn fails: roll back only the
 * turn's own messages (`rollbackTurn`); the compaction stays.
 *
 * @example
 * try { response = await client.send(fitted.request); } catch (error) {
 *   if (!ProviderError.isInstance(error) || error.overflow.kind === 'none') throw error;
 *   const recovery = await recoverFromOverflow({ request, overflow: error.overflow, manager, summarize });
 *   if (recovery.action === 'give_up') throw recovery.error ?? new Error(recovery.message);
 *   if (recovery.messages) history = recovery.messages;
 *   response = await client.send(recovery.request!);
 * }
 */
export async function recoverFromOverflow(options: RecoverFromOverflowOptions): Promise<RecoveryResult> {
  const { overflow, manager } = options;
  const base: ChatRequest = options.history
    ? { ...options.request, messages: options.history }
    : options.request;
  const model = base.model ?? manager.model;
  const steps: string[] = [];
  const stated = windowFromOverflow(overflow);
  const learn = () => {
    if (stated === undefined || model === undefined) return;
    manager.learnWindow(model, stated);
    steps.push(`learned window ${stated} for ${model}`);
  };
  const result = (action: RecoveryAction, fields: Partial<RecoveryResult> = {}): RecoveryResult => ({
    action,
    removed: [],
    steps,
    ...(stated === undefined ? {} : { window: stated }),
    ...fields,
  });

  // A provider that counted more prompt tokens than Spillway did teaches the calibration (only up).
  if (overflow.input !== undefined && overflow.units !== 'characters' && overflow.kind !== 'none') {
    const sent = options.history ? options.request : tryFit(manager, base)?.request;
    if (sent !== undefined && overflow.input > manager.measure(sent).estimate) {
      manager.calibrateFromCount({ request: sent, promptTokens: overflow.input });
      steps.push(
        `the provider counted ${overflow.input} prompt tokens, more than estimated: calibration raised`,
      );
    }
  }

  if (overflow.kind === 'none')
    return result('give_up', {
      message: `the rejection is not an overflow (${overflow.pattern}); recovery only handles context, budget and output_cap rejections`,
    });

  if (
    overflow.kind === 'output_cap' &&
    overflow.outputLimit === undefined &&
    overflow.window !== undefined &&
    model !== undefined
  ) {
    // vLLM's "max_tokens=X cannot be greater than max_model_len=W": the figure is the model's window,
    // not an output cap. Learn it, and ask for at most the room the prompt leaves in it.
    manager.learnWindow(model, overflow.window);
    steps.push(`output_cap: max_tokens over the model length ${overflow.window}; learned it as the window`);
    // The rejected max_tokens does not fit the learned window: fit without it, then ask for the room.
    const { maxTokens: rejected, ...unbounded } = base;
    const refit = tryFit(manager, unbounded);
    if (refit !== undefined) {
      const room = refit.window - refit.estimate - CLAMP_MARGIN;
      const requested = rejected ?? overflow.output;
      const maxTokens = Math.min(requested ?? room, room);
      if (maxTokens >= 1) {
        steps.push(`output_cap: max_tokens ${requested ?? 'unset'} → ${maxTokens}`);
        return result('lower_max_tokens', { request: { ...refit.request, maxTokens } });
      }
    }
    return contextChain(options, base, steps, result);
  }

  if (overflow.kind === 'output_cap') {
    const sent = tryFit(manager, base);
    if (sent === undefined) {
      steps.push('output_cap: the request does not fit the window either; treated as context');
      learn();
      return contextChain(options, base, steps, result);
    }
    const current = sent.request.maxTokens ?? overflow.output;
    const limit = overflow.outputLimit ?? overflow.window;
    const cap =
      limit !== undefined
        ? Math.min(limit, (current ?? limit + 1) - 1)
        : Math.floor((current ?? 2 * 1_024) / 2);
    if (!(cap >= 1))
      return result('give_up', { message: 'the provider rejects every output cap; check the model id' });
    if (model !== undefined) manager.learnOutputCap(model, cap);
    const room = sent.window - sent.estimate - CLAMP_MARGIN;
    const maxTokens = room >= MIN_CLAMPED_OUTPUT ? Math.min(cap, room) : cap;
    steps.push(`output_cap: max_tokens ${current ?? 'unset'} → ${maxTokens} (cap ${cap} learned)`);
    return result('lower_output_cap', { request: { ...sent.request, maxTokens } });
  }

  if (overflow.kind === 'budget') {
    // Fitted as it was sent (before the window is learned), so the prompt stays the one rejected.
    const sent = tryFit(manager, base);
    learn();
    if (sent !== undefined) {
      const window = stated ?? sent.window;
      const input = Math.max(overflow.input ?? 0, sent.estimate);
      const room = window - input - CLAMP_MARGIN;
      if (room >= MIN_CLAMPED_OUTPUT) {
        const maxTokens = Math.min(room, sent.request.maxTokens ?? room);
        steps.push(
          `budget: max_tokens = ${window} - ${input} - ${CLAMP_MARGIN} = ${room}; retrying with ${maxTokens}`,
        );
        return result('lower_max_tokens', { request: { ...sent.request, maxTokens } });
      }
      steps.push(
        `budget: ${window} - ${input} - ${CLAMP_MARGIN} leaves ${room} < ${MIN_CLAMPED_OUTPUT} for the reply; treated as context`,
      );
    } else steps.push('budget: the request no longer fits the learned window; treated as context');
    return contextChain(options, base, steps, result);
  }

  learn();
  return contextChain(options, base, steps, result);
}

function tryFit(manager: ContextWindowManager, request: ChatRequest): FitResult | undefined {
  try {
    return manager.fit(request);
  } catch (error) {
    if (ContextTruncatedError.isInstance(error)) return undefined;
    throw error;
  }
}

type Finish = (action: RecoveryAction, fields?: Partial<RecoveryResult>) => RecoveryResult;

/** The escalation chain for a prompt that does not fit. */
async function contextChain(
  options: RecoverFromOverflowOptions,
  request: ChatRequest,
  steps: string[],
  finish: Finish,
): Promise<RecoveryResult> {
  const { manager, summarize, signal, summaryMaxTokens } = options;
  let base = request;
  const model = base.model ?? manager.model;
  const requested = base.maxTokens;
  // A max_tokens that leaves no room in the learned window (a clamp made for the old one, usually)
  // is not kept as the reply's reserve: the retry is clamped again, never above it.
  if (requested !== undefined) {
    const floor = smallestTranscript(base.messages);
    const withIt = manager.measure({ ...base, messages: floor });
    const { maxTokens: _, ...withoutMax } = base;
    if (
      withIt.estimate > withIt.budget &&
      manager.measure({ ...withoutMax, messages: floor }).budget >= withIt.estimate
    ) {
      steps.push(
        `max_tokens ${requested} leaves no room in the ${withIt.window}-token window; left to the clamp`,
      );
      base = withoutMax;
    }
  }
  const measure = (messages: readonly Message[]): RequestMeasure =>
    manager.measure({ ...base, messages: messages as Message[] });
  const estimate = (messages: readonly Message[]) => measure(messages).estimate;
  const originals = new Set(base.messages);
  // Placeholders recovery made, and the original messages each stands for.
  const standsFor = new Map<Message, Message[]>();
  const flatten = (messages: readonly Message[]) =>
    messages.flatMap((message) => standsFor.get(message) ?? [message]);
  const spans: Array<RecallSpan & { placeholder: Message }> = [];
  let current: Message[] = base.messages;

  const floor = smallestTranscript(current);
  const floorMeasure = measure(floor);
  // The estimate errs high (never low): when it is all that says the smallest request cannot fit,
  // the provider decides, with one try of that request. A second rejection ends the turn.
  // Tool schemas crowding the window are not the history's problem and get no such try.
  const lastTry = (): RecoveryResult | undefined => {
    const { estimate: needed, budget, reserve, schemaTokens } = floorMeasure;
    if (!manager.estimatesErrHigh || budget <= 0 || schemaTokens > budget / 2) return undefined;
    if (needed / ESTIMATE_OVERCOUNT_CEILING > budget) return undefined;
    const maxTokens = Math.max(1, Math.min(requested ?? reserve, reserve));
    steps.push(
      `the smallest request is estimated at ${needed} > ${budget}, which the estimate's margin cannot rule out fitting: sent once for the provider to decide`,
    );
    // The history stays as it is; only this one request is cut down to the newest unit.
    return finish('last_try', { request: { ...base, messages: floor, maxTokens } });
  };
  if (floorMeasure.estimate > floorMeasure.budget) {
    const attempt = lastTry();
    if (attempt) return attempt;
    const message = explainFloor({
      floor,
      measure: floorMeasure,
      part: (item) => estimate([item]) - estimate([]),
    });
    steps.push(`the smallest request needs ${floorMeasure.estimate} > ${floorMeasure.budget}: giving up`);
    return finish('give_up', {
      message,
      error: new ContextTruncatedError(message, {
        estimate: floorMeasure.estimate,
        budget: floorMeasure.budget,
        window: floorMeasure.window,
        reserve: floorMeasure.reserve,
        schemaTokens: floorMeasure.schemaTokens,
      }),
    });
  }

  const accept = (action: RecoveryAction, messages: Message[]): RecoveryResult | undefined => {
    manager.rebase({ messages });
    const fitted = tryFit(manager, { ...base, messages });
    if (fitted === undefined) {
      steps.push(`${action}: the result still does not fit when fitted; next step`);
      return undefined;
    }
    const kept = new Set(messages);
    const retry = fitted.request;
    if (requested !== undefined && retry.maxTokens !== undefined && retry.maxTokens > requested)
      retry.maxTokens = requested;
    // The clamp never goes below 1,024, which a tiny window cannot hold: a retry must fit.
    if (retry.maxTokens !== undefined && fitted.estimate + retry.maxTokens > fitted.window)
      retry.maxTokens = Math.max(1, fitted.window - fitted.estimate);
    return finish(action, {
      request: retry,
      messages,
      removed: base.messages.filter((message) => !kept.has(message)),
      recall: spans.filter((span) => kept.has(span.placeholder)).map(({ placeholder: _, ...span }) => span),
    });
  };
  const record = (placeholder: Message, removed: readonly Message[], span: Omit<RecallSpan, 'messages'>) => {
    const stood = flatten(removed).filter((message) => originals.has(message));
    standsFor.set(placeholder, stood);
    spans.push({ ...span, messages: stood, placeholder });
  };

  // 1–2. Compaction, then the same with a smaller kept tail, halving down to one turn.
  if (summarize) {
    let keepTurns: number | undefined;
    for (;;) {
      const compaction: CompactionResult = await manager.compact({
        messages: current,
        summarize,
        tools: base.tools,
        ...(model === undefined ? {} : { model }),
        format: base.format,
        ...(signal === undefined ? {} : { signal }),
        ...(summaryMaxTokens === undefined ? {} : { summaryMaxTokens }),
        ...(base.maxTokens === undefined ? {} : { maxTokens: base.maxTokens }),
        ...(keepTurns === undefined ? {} : { keepTurns }),
      });
      const label = keepTurns === undefined ? 'compaction' : `compaction keeping ${keepTurns} turns`;
      const outcome = compaction.ok ? 'ok' : compaction.code;
      steps.push(
        `${label}: ${outcome}${compaction.estimate === undefined ? '' : ` (${compaction.estimate} / ${compaction.budget})`}`,
      );
      if (
        compaction.summary &&
        compaction.messages &&
        compaction.removed &&
        (compaction.ok || compaction.code === 'over_budget')
      ) {
        const [span] = compaction.recall ?? [];
        record(compaction.summary, compaction.removed, {
          id: span?.id ?? '',
          kind: 'compacted',
          label: span?.label ?? 'compacted messages',
        });
        current = compaction.messages;
        if (compaction.ok) {
          const done = accept('compacted', current);
          if (done) return done;
        }
      }
      if (
        !compaction.ok &&
        (compaction.code === 'summarizer_failed' || compaction.code === 'nothing_to_compact')
      )
        break;
      const kept = compaction.keptTurns ?? keepTurns ?? 1;
      if (kept <= 1) break;
      keepTurns = Math.max(1, Math.floor(kept / 2));
    }
  }

  // 3. Forced prune: every tool result outside the newest run stubbed (sticky, like every level).
  const before = estimate(current);
  const { escalated } = manager.compress({ request: { ...base, messages: current } });
  const pruned = measure(current);
  steps.push(
    `forced prune: ${escalated.length} tool results stubbed (${before} → ${pruned.estimate} / ${pruned.budget})`,
  );
  if (escalated.length > 0 && pruned.estimate <= pruned.budget) {
    const done = accept(current === base.messages ? 'truncated' : 'compacted', current);
    if (done) return done;
  }

  const fits = (messages: Message[]) => estimate(messages) <= pruned.budget;
  const tryCut = (action: RecoveryAction, kind: RecallSpan['kind'], cut: TranscriptCut | undefined) => {
    if (cut === undefined) {
      steps.push(`${action}: nothing fits this way`);
      return undefined;
    }
    const check = validateCompaction({
      before: current,
      after: cut.messages,
      budget: pruned.budget,
      estimate,
    });
    steps.push(`${action}: ${check.ok ? 'ok' : check.code} (${estimate(cut.messages)} / ${pruned.budget})`);
    if (!check.ok) return undefined;
    const id = /#(\d+)/.exec(String(cut.marker.content))?.[1] ?? '';
    record(cut.marker, cut.removed, {
      id,
      kind,
      label: `${cut.removed.length} messages ${kind === 'truncation' ? 'truncated' : 'condensed'}`,
    });
    return accept(action, cut.messages);
  };

  // 4. Hard truncation: a marker and the newest whole turns that fit.
  const truncated = tryCut(
    'truncated',
    'truncation',
    truncateTranscript({ messages: current, recallId: manager.nextRecallId(), fits }),
  );
  if (truncated) return truncated;

  // 5. The non-LLM fallback, down to the newest pairing-safe unit.
  const fallback = tryCut(
    'fallback',
    'compacted',
    fallbackToNewest({ messages: current, recallId: manager.nextRecallId(), fits }),
  );
  if (fallback) return fallback;

  return (
    lastTry() ??
    finish('give_up', {
      message:
        'no step of the recovery chain produced a request that fits; the conversation is kept as it was',
    })
  );
}
