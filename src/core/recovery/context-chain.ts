/**
 * @module
 * The escalation chain for a prompt that does not fit, as a list of named steps: compaction (and
 * the same with a smaller kept tail) → forced prune → hard truncation → the newest turn's tool
 * results shortened → the non-LLM fallback, each validated, with the smallest request checked first
 * and a last try when only the estimate says nothing fits. Nothing before the fallback cuts the
 * head (the system prompt and the task).
 */
import { type CompactionResult, type RecallSpan, validateCompaction } from '../compact/index.js';
import { describeToolCall, indexToolCalls } from '../compress/index.js';
import { ContextTruncatedError } from '../errors/index.js';
import { ESTIMATE_OVERCOUNT_CEILING } from '../tokens/index.js';
import type { Message } from '../transcript/index.js';
import { ChainState } from './chain-state.js';
import type { RecoveryContext } from './recovery-context.js';
import type { RecoveryResult } from './recovery-result.js';
import { explainFloor } from './smallest-request.js';
import {
  fallbackToNewest,
  type ShortenedTurnCut,
  shortenNewestTurn,
  type TranscriptCut,
  truncateTranscript,
} from './truncate-transcript.js';

/** One step of the chain: a result to return, or `undefined` to go on. */
type ChainStep = (chain: ChainState) => Promise<RecoveryResult | undefined> | RecoveryResult | undefined;

/** The steps in the order they are tried. */
const STEPS: readonly ChainStep[] = [
  floorCheck,
  compaction,
  forcedPrune,
  hardTruncation,
  shortenedNewest,
  fallback,
];

/**
 * Runs the chain: the first step that produces a request that fits wins. A smaller-but-still-over
 * result of one step is what the next one starts from; a broken one is dropped.
 */
export async function contextChain(context: RecoveryContext): Promise<RecoveryResult> {
  const chain = new ChainState(context);
  for (const step of STEPS) {
    const result = await step(chain);
    if (result) return result;
  }
  return (
    lastTry(chain) ??
    chain.context.finish({
      action: 'give_up',
      reason: 'chain_exhausted',
      message:
        'no step of the recovery chain produced a request that fits; the conversation is kept as it was',
    })
  );
}

/**
 * When even the smallest request cannot fit, the history is not the problem: stop with what to
 * change, unless only the estimate's margin says so (then the last try).
 */
function floorCheck(chain: ChainState): RecoveryResult | undefined {
  const { floorMeasure: measure, floor } = chain;
  if (measure.estimate <= measure.budget) return undefined;
  const attempt = lastTry(chain);
  if (attempt) return attempt;
  const message = explainFloor({
    floor,
    measure,
    part: (item) => chain.estimate([item]) - chain.estimate([]),
    tools: chain.base.tools,
  });
  chain.context.steps.push({
    step: 'give_up',
    reason: 'floor_does_not_fit',
    estimate: measure.estimate,
    budget: measure.budget,
  });
  return chain.context.finish({
    action: 'give_up',
    reason: 'floor_does_not_fit',
    message,
    error: new ContextTruncatedError(message, {
      estimate: measure.estimate,
      budget: measure.budget,
      window: measure.window,
      reserve: measure.reserve,
      schemaTokens: measure.schemaTokens,
    }),
  });
}

/**
 * The estimate errs high (never low): when it is all that says the smallest request cannot fit, the
 * provider decides, with one try of that request; the history stays. Tool schemas crowding the
 * window are not the history's problem and get no such try.
 */
function lastTry(chain: ChainState): RecoveryResult | undefined {
  const { manager } = chain.context;
  const { estimate, budget, reserve, schemaTokens } = chain.floorMeasure;
  if (!manager.estimatesErrHigh || budget <= 0 || schemaTokens > budget / 2) return undefined;
  if (estimate / ESTIMATE_OVERCOUNT_CEILING > budget) return undefined;
  const maxTokens = Math.max(1, Math.min(chain.requested ?? reserve, reserve));
  chain.context.steps.push({ step: 'last_try', estimate, budget });
  return chain.context.finish({
    action: 'last_try',
    request: { ...chain.base, messages: chain.floor, maxTokens },
  });
}

/** Compaction with the summarizer, then the same with a smaller kept tail, halving down to one turn. */
async function compaction(chain: ChainState): Promise<RecoveryResult | undefined> {
  const { options, manager, model } = chain.context;
  const { summarize, signal, summaryMaxTokens } = options;
  if (!summarize) return undefined;
  const { base } = chain;
  let keepTurns: number | undefined;
  for (;;) {
    const result: CompactionResult = await manager.compact({
      messages: chain.current,
      summarize,
      tools: base.tools,
      ...(model === undefined ? {} : { model }),
      format: base.format,
      ...(signal === undefined ? {} : { signal }),
      ...(summaryMaxTokens === undefined ? {} : { summaryMaxTokens }),
      ...(base.maxTokens === undefined ? {} : { maxTokens: base.maxTokens }),
      ...(keepTurns === undefined ? {} : { keepTurns }),
    });
    chain.context.steps.push({
      step: 'compaction',
      ...(keepTurns === undefined ? {} : { keepTurns }),
      outcome: result.ok ? 'ok' : result.code,
      ...(result.estimate === undefined ? {} : { estimate: result.estimate, budget: result.budget }),
    });
    const usable = result.ok || result.code === 'over_budget';
    if (result.summary && result.messages && result.removed && usable) {
      const [span] = result.recall ?? [];
      chain.record(result.summary, result.removed, {
        id: span?.id ?? '',
        kind: 'compacted',
        label: span?.label ?? 'compacted messages',
      });
      chain.current = result.messages;
      if (result.ok) {
        const done = chain.accept('compacted', chain.current);
        if (done) return done;
      }
    }
    if (!result.ok && (result.code === 'summarizer_failed' || result.code === 'nothing_to_compact'))
      return undefined;
    const kept = result.keptTurns ?? keepTurns ?? 1;
    if (kept <= 1) return undefined;
    keepTurns = Math.max(1, Math.floor(kept / 2));
  }
}

/** Every tool result outside the newest run stubbed (sticky, like every compression level). */
function forcedPrune(chain: ChainState): RecoveryResult | undefined {
  const { manager } = chain.context;
  const before = chain.estimate(chain.current);
  const { escalated } = manager.compress({ request: { ...chain.base, messages: chain.current } });
  const after = chain.measure(chain.current);
  chain.budget = after.budget;
  chain.context.steps.push({
    step: 'forced_prune',
    stubbed: escalated.length,
    before,
    after: after.estimate,
    budget: after.budget,
  });
  if (escalated.length === 0 || after.estimate > after.budget) return undefined;
  return chain.accept(chain.current === chain.base.messages ? 'truncated' : 'compacted', chain.current);
}

/** A marker and the newest whole turns that fit. */
function hardTruncation(chain: ChainState): RecoveryResult | undefined {
  const cut = truncateTranscript({
    messages: chain.current,
    recallId: chain.context.manager.nextRecallId(),
    fits: chain.fits,
  });
  return tryCut(chain, 'truncate', cut && transcriptCut(cut, 'truncation'));
}

/**
 * The newest turn alone, its tool results shortened to their start and end: what the fit does when
 * the head and the newest turn do not fit, here on the count the rejection proved right. The user's
 * text stays whole, which the fallback's digest does not promise.
 */
function shortenedNewest(chain: ChainState): RecoveryResult | undefined {
  const { manager } = chain.context;
  const empty = chain.estimate([]);
  const cut = shortenNewestTurn({
    messages: chain.current,
    recallId: () => manager.nextRecallId(),
    fits: chain.fits,
    tokensOf: (message) => chain.estimate([message]) - empty,
    markers: { recall: manager.offersRecall },
  });
  return tryCut(chain, 'shorten', cut && shortenedCut(cut));
}

/** The non-LLM fallback, down to the newest pairing-safe unit. */
function fallback(chain: ChainState): RecoveryResult | undefined {
  const cut = fallbackToNewest({
    messages: chain.current,
    recallId: chain.context.manager.nextRecallId(),
    fits: chain.fits,
  });
  return tryCut(chain, 'fallback', cut && transcriptCut(cut, 'compacted'));
}

/** A cut the chain may accept: the history it leaves, and each placeholder with what it stands for. */
interface ChainCut {
  messages: Message[];
  placed: Array<{
    placeholder: Message;
    removed: readonly Message[];
    span: Omit<RecallSpan, 'messages'>;
  }>;
}

type Placed = ChainCut['placed'][number];

/** A marker that stands for the messages a cut took out. */
function markerPlaced(
  { marker, removed }: { marker: Message; removed: readonly Message[] },
  kind: 'truncation' | 'compacted',
): Placed {
  const id = /#(\d+)/.exec(String(marker.content))?.[1] ?? '';
  const label = `${removed.length} messages ${kind === 'truncation' ? 'truncated' : 'condensed'}`;
  return { placeholder: marker, removed, span: { id, kind, label } };
}

function transcriptCut(cut: TranscriptCut, kind: 'truncation' | 'compacted'): ChainCut {
  return { messages: cut.messages, placed: [markerPlaced(cut, kind)] };
}

function shortenedCut(cut: ShortenedTurnCut): ChainCut {
  const placed: Placed[] = cut.truncation ? [markerPlaced(cut.truncation, 'truncation')] : [];
  const calls = indexToolCalls(cut.messages);
  for (const { shortened, original, recallId } of cut.results) {
    const call = calls.get(original.toolCallId)?.call;
    placed.push({
      placeholder: shortened,
      removed: [original],
      span: {
        id: String(recallId),
        kind: 'truncated',
        label: call ? describeToolCall(call) : `tool result ${original.toolCallId}`,
      },
    });
  }
  return { messages: cut.messages, placed };
}

/** Validates a transcript cut and accepts it when it keeps everything a compaction must. */
function tryCut(
  chain: ChainState,
  step: 'truncate' | 'shorten' | 'fallback',
  cut: ChainCut | undefined,
): RecoveryResult | undefined {
  const budget = chain.budget;
  if (cut === undefined) {
    chain.context.steps.push({ step, outcome: 'nothing_fits', budget });
    return undefined;
  }
  const check = validateCompaction({
    before: chain.current,
    after: cut.messages,
    budget,
    estimate: chain.bound,
  });
  chain.context.steps.push({
    step,
    outcome: check.ok ? 'ok' : check.code,
    estimate: chain.bound(cut.messages),
    budget,
  });
  if (!check.ok) return undefined;
  for (const { placeholder, removed, span } of cut.placed) chain.record(placeholder, removed, span);
  return chain.accept(step === 'fallback' ? 'fallback' : 'truncated', cut.messages);
}
