/**
 * @module
 * The steps of `fit`, as a pipeline. A request that fits goes out as it came; otherwise the run's
 * earlier cut is applied; only when that does not fit either is a new cut made, deep enough to last
 * several turns, and the cheapest for the provider's prefix cache; an oversized newest turn has its
 * tool results shortened. Nothing is refused or cut on an estimate alone: when only the estimate's
 * margin says "does not fit", the request goes out for the provider to judge.
 */
import {
  applyCompression,
  type CompressionState,
  elideToolResults,
  ledgerEntries,
  namesOnlyIn,
  type RenderMemo,
} from '../compress/index.js';
import { cutTarget, ledgerText, type MarkerOptions, shortenNewest } from '../cut/index.js';
import { applyCalibration, type Calibration, type EstimateCache, scalarFactor } from '../tokens/index.js';
import { type ChatRequest, type Message, splitTurns, type UserMessage } from '../transcript/index.js';
import type { CutReport } from './fit-result.js';
import { markerMessage } from './placeholders.js';
import { pruneWithMarker, segmentForCut } from './prune-with-marker.js';
import {
  budgetFor,
  type CountContext,
  countRequest,
  type FitBudgets,
  type FitVerdict,
  type RequestCount,
  verdictOf,
} from './request-count.js';
import { applyStickyCut, type StickyCut, stickyCutOf } from './sticky-cut.js';

/** Everything one fit works with. */
export interface FitContext extends CountContext, FitBudgets {
  request: ChatRequest;
  /**
   * The most prompt tokens the window holds beside the reply's reserve (`window - reserve`): a
   * request is refused only when even the least its count can be is over it.
   */
  limit: number;
  /** Raw tokens of the tool schemas and the request overhead. */
  fixedRaw: number;
  /** What new cuts are planned with (see {@link CutMeasure}). */
  planning: CutMeasure;
  compression: CompressionState;
  cut: StickyCut | undefined;
  memo: RenderMemo;
  markers: Map<string, UserMessage>;
  markerOptions: MarkerOptions;
  appendRate: number | undefined;
  /** Turns a new cut leaves room for (the `cutRunway` option). */
  runway: number | undefined;
  /** Whether old tool results may be elided (the `compress` option). */
  elide: boolean;
}

/**
 * The measure a new cut is planned with: the counter trusted to count as the provider does, where
 * there is one (its tokens as they are, its spread as the margin), else the estimate with the
 * calibration's upper factor. A plan on the trusted count fills the budget as that count will judge
 * it; a plan on the estimate's upper bound leaves the estimate's margin empty.
 */
export interface CutMeasure {
  cache: EstimateCache;
  /** Real tokens per planned token, at most. */
  factor: number;
  /** Planned tokens of the tool schemas and the request overhead. */
  fixedRaw: number;
}

/** What the pipeline decided. */
export interface FitPlan {
  messages: Message[];
  count: RequestCount;
  verdict: Exclude<FitVerdict, 'over'>;
  cut: CutReport;
  compression: CompressionState;
  stickyCut: StickyCut | undefined;
  /** The turns left out behind the marker, for recall. */
  pruned?: { recallId: number; messages: Message[]; start: number; end: number };
}

/** A plan, or `over` with the count of the smallest request there can be: nothing fits. */
export type FitOutcome =
  | { kind: 'plan'; plan: FitPlan }
  | { kind: 'over'; count: RequestCount; messages: Message[] };

/**
 * Share of the budget the outputs used most recently keep whole through an elision: a cut that needs
 * more drops old turns. On replayed trajectories eliding what the agent used lately lost more of its
 * next step than dropping the oldest turns (`npm run eval -- kept`).
 */
const PROTECT_NEWEST_SHARE = 0.4;

/**
 * Share of the budget the names a drop takes out of sight may fill in its marker: on the tuning
 * trajectories of `npm run eval -- kept`, recall rose with it up to about this share and no further.
 */
const MARKER_NAMES_SHARE = 0.15;
/** Characters per token of a list of names, on the low side (o200k: about 4 for identifiers). */
const NAMES_CHARS_PER_TOKEN = 3;

/** Characters of names a drop's marker may list, for a budget (none for a budget below zero). */
function markerNamesChars(budget: number): number {
  return Math.max(0, Math.floor(budget * MARKER_NAMES_SHARE * NAMES_CHARS_PER_TOKEN));
}

const NO_CUT: CutReport = { kind: 'none', freed: 0, droppedTurns: 0, elided: 0, shortened: 0 };

/**
 * Plans a fit: the request as it came → the run's sticky cut → a new cut → the newest turn shortened.
 *
 * @example
 * const outcome = planFit(context);
 * if (outcome.kind === 'over') throw new ContextTruncatedError(…);
 */
export function planFit(context: FitContext): FitOutcome {
  return asItCame(context) ?? withStickyCut(context) ?? withNewCut(context);
}

function count(context: FitContext, messages: readonly Message[]): RequestCount {
  return countRequest(context, { messages: messages as Message[], tools: context.request.tools }, context);
}

/** The request as the caller built it, when it fits (or only the estimate says it may not). */
function asItCame(context: FitContext): FitOutcome | undefined {
  const { request, cut } = context;
  const whole = count(context, request.messages);
  const verdict = verdictOf(whole, context);
  const budget = budgetFor(whole, context);
  // With a cut in force the history goes back to whole only with room to grow, so requests do not
  // flip between the two forms (each flip is a new prefix for the provider's cache).
  const roomy =
    cut === undefined ||
    whole.tokens <= cutTarget({ budget, appendRate: context.appendRate, runway: context.runway });
  if (verdict === 'fits' && roomy) return plan(context, request.messages, whole, 'fits', NO_CUT, undefined);
  if (verdict === 'uncertain' && cut === undefined && !hasStoredLevels(context))
    return plan(context, request.messages, whole, 'uncertain', NO_CUT, undefined);
  return undefined;
}

function hasStoredLevels(context: FitContext): boolean {
  return (
    applyCompression({
      messages: context.request.messages,
      state: context.compression,
      memo: context.memo,
    }) !== context.request.messages
  );
}

/** The run's earlier cut (turns left out, results elided or shortened), when it still fits. */
function withStickyCut(context: FitContext): FitOutcome | undefined {
  const view = stickyView(context);
  if (view.messages === context.request.messages && context.cut === undefined) return undefined;
  const counted = count(context, view.messages);
  const verdict = verdictOf(counted, context);
  if (verdict === 'over') return undefined;
  return plan(
    context,
    view.messages,
    counted,
    verdict,
    { ...NO_CUT, kind: 'sticky', droppedTurns: view.droppedTurns },
    view.cut,
    view.pruned,
  );
}

/** The request with the stored cut and levels applied. */
function stickyView(context: FitContext): {
  /** The history with the cut applied, results as the caller sent them. */
  unrendered: Message[];
  /** The same with the stored levels applied: what would be sent. */
  messages: Message[];
  cut: StickyCut | undefined;
  droppedTurns: number;
  pruned?: FitPlan['pruned'];
} {
  const { request, cut, compression, memo } = context;
  const segmentation = segmentForCut(splitTurns(request.messages), request.messages);
  const cutView =
    cut === undefined
      ? undefined
      : applyStickyCut({
          messages: request.messages,
          segmentation,
          cut,
          marker: markerMessage(context.markers, cut.markerText),
        });
  const unrendered = cutView ?? request.messages;
  const messages = applyCompression({ messages: unrendered, state: compression, memo }) as Message[];
  if (cutView === undefined || cut === undefined)
    return { unrendered, messages, cut: undefined, droppedTurns: 0 };
  const start = segmentation.head.end;
  return {
    unrendered,
    messages,
    cut,
    droppedTurns: cut.turns,
    pruned: {
      recallId: compression.pruned?.recallId ?? 0,
      messages: request.messages.slice(start, start + cut.messages),
      start,
      end: start + cut.messages,
    },
  };
}

/** A new cut: the cheapest candidate that reaches the target, else the floor, shortened if need be. */
function withNewCut(context: FitContext): FitOutcome {
  const view = stickyView(context);
  const before = count(context, view.messages);
  const target = cutTarget({
    budget: context.budget,
    appendRate: context.appendRate,
    runway: context.runway,
  });
  const candidates = cutCandidates(context, view, target);
  const fitting = candidates.filter(
    (candidate) => candidate.count.tokens <= budgetFor(candidate.count, context),
  );
  const reaching = fitting.filter((candidate) => candidate.count.tokens <= target);
  const chosen = cheapest(reaching.length > 0 ? reaching : fitting);
  if (chosen) return planCandidate(context, chosen, before, 'fits');
  return shortenOrGiveUp(context, candidates.at(-1) ?? undefined, before);
}

/** One way to cut, with what it costs the prefix cache. */
interface Candidate {
  kind: CutReport['kind'];
  messages: Message[];
  count: RequestCount;
  compression: CompressionState;
  stickyCut: StickyCut | undefined;
  droppedTurns: number;
  elided: number;
  /** Calibrated tokens before the first message the cut changed: still cached by the provider. */
  keptPrefix: number;
  pruned?: FitPlan['pruned'];
}

/** Elide old tool results; drop old turns; elide and then drop. */
function cutCandidates(
  context: FitContext,
  view: ReturnType<typeof stickyView>,
  target: number,
): Candidate[] {
  const candidates: Candidate[] = [];
  const base = view.messages;
  const prefixOf = (messages: readonly Message[], end: number) =>
    applyCalibration(context.calibration, context.cache.messages(messages.slice(0, end)).total);
  if (context.elide) {
    const elided = elideToolResults({
      messages: view.unrendered,
      state: context.compression,
      target,
      estimateOf: (message) => context.planning.cache.message(message).total,
      fixed: context.planning.fixedRaw,
      factor: context.planning.factor,
      memo: context.memo,
      recall: context.markerOptions.recall,
      protect: Math.floor(context.budget * PROTECT_NEWEST_SHARE),
    });
    if (elided.elided.length > 0)
      candidates.push({
        kind: 'elide',
        messages: elided.messages as Message[],
        count: count(context, elided.messages),
        compression: elided.state,
        stickyCut: view.cut,
        droppedTurns: view.droppedTurns,
        elided: elided.elided.length,
        keptPrefix: prefixOf(base, elided.firstChanged ?? base.length),
        ...(view.pruned ? { pruned: view.pruned } : {}),
      });
    const last = candidates.at(-1);
    if (last && last.count.tokens > target) {
      const dropped = dropTurns({ ...context, compression: last.compression }, view, last.messages, target);
      // Results elided in turns the drop then left out are not elided in what is sent: only those
      // still there count, and with none left the cut is a plain drop.
      const kept = dropped ? elidedIn(dropped.messages, elided.elided) : 0;
      if (dropped) candidates.push({ ...dropped, kind: kept > 0 ? 'elide+drop' : 'drop', elided: kept });
    }
  }
  const dropped = dropTurns(context, view, base, target);
  if (dropped) candidates.push(dropped);
  return candidates;
}

/** Drops the oldest whole turns until the target, behind one marker. */
function dropTurns(
  context: FitContext,
  view: ReturnType<typeof stickyView>,
  messages: Message[],
  target: number,
): Candidate | undefined {
  const { request, calibration, cache } = context;
  const cut = view.cut;
  const namesChars = markerNamesChars(context.budget);
  // With a cut in force, its marker is the first turn after the head and goes with the next cut.
  const offset = cut ? { messages: cut.messages - 1, turns: cut.turns - 1 } : { messages: 0, turns: 0 };
  const segmentation = segmentForCut(splitTurns(request.messages), request.messages);
  const start = segmentation.head.end;
  const result = pruneWithMarker({
    messages,
    segmentation: splitTurns(messages),
    cache: context.planning.cache,
    fixedRaw: context.planning.fixedRaw,
    budget: target,
    factor: context.planning.factor,
    state: context.compression,
    markers: context.markers,
    markerOptions: context.markerOptions,
    offset,
    limit: context.budget,
    ledger: (dropped) => ledgerEntries(request.messages.slice(start, start + dropped)),
    // Names the marker's list of what the turns read and ran already carries are not listed again.
    names: (dropped, kept) => {
      const cut = request.messages.slice(start, start + dropped);
      const ledger: Message = { role: 'user', content: ledgerText(ledgerEntries(cut)) };
      return namesOnlyIn({ cut, kept: [...kept, ledger], maxChars: namesChars });
    },
    namesChars,
  });
  if (result.droppedTurns === 0) return undefined;
  const droppedMessages = result.droppedIndices.length + offset.messages;
  const end = start + droppedMessages;
  const stickyCut = stickyCutOf({
    request: request.messages,
    end,
    messages: droppedMessages,
    turns: result.droppedTurns + offset.turns,
    // Without a marker (not even the bare one fitted) there is no cut to keep: the next send cuts anew.
    markerText: result.marker ? result.state.pruned?.text : undefined,
  });
  return {
    kind: 'drop',
    messages: result.messages,
    count: count(context, result.messages),
    compression: result.state,
    stickyCut,
    droppedTurns: result.droppedTurns + offset.turns,
    elided: 0,
    keptPrefix: applyCalibration(calibration, cache.messages(result.messages.slice(0, result.head)).total),
    ...(result.marker
      ? {
          pruned: {
            recallId: result.marker.recallId,
            messages: request.messages.slice(start, end),
            start,
            end,
          },
        }
      : {}),
  };
}

/**
 * Among cuts that leave the same runway, the one that keeps the longest unchanged prefix (the
 * provider serves it from its cache at a fraction of the price), then the one that takes out the
 * least (the model keeps the most), then the one that drops the fewest turns.
 */
function cheapest(candidates: readonly Candidate[]): Candidate | undefined {
  let best: Candidate | undefined;
  for (const candidate of candidates) {
    if (best === undefined || better(candidate, best)) best = candidate;
  }
  return best;
}

/** How many of the tool results with the `elided` call ids are among `messages`. */
function elidedIn(messages: readonly Message[], elided: readonly string[]): number {
  const ids = new Set(elided);
  return messages.filter((message) => message.role === 'tool' && ids.has(message.toolCallId)).length;
}

function better(a: Candidate, b: Candidate): boolean {
  if (a.keptPrefix !== b.keptPrefix) return a.keptPrefix > b.keptPrefix;
  if (a.count.tokens !== b.count.tokens) return a.count.tokens > b.count.tokens;
  return a.droppedTurns < b.droppedTurns;
}

/**
 * The deepest cut does not fit on the estimate. When only the estimate's margin says so, it goes out
 * as it is, for a count (`measure`) or the provider to judge: nothing of the newest turn is cut on an
 * estimate alone. Otherwise the newest turn's tool results are shortened; if the rest alone is too
 * large, it is sent when only the estimate says so, or when only a margin does (the least it can be
 * leaves the reply its reserve), else the outcome is `over`.
 */
function shortenOrGiveUp(
  context: FitContext,
  deepest: Candidate | undefined,
  before: RequestCount,
): FitOutcome {
  const floor = deepest ?? {
    kind: 'none' as const,
    messages: stickyView(context).messages,
    count: before,
    compression: context.compression,
    stickyCut: context.cut,
    droppedTurns: 0,
    elided: 0,
    keptPrefix: 0,
  };
  if (verdictOf(floor.count, context) === 'uncertain')
    return planCandidate(context, floor, before, 'uncertain');
  const { candidate, counted, shortened } = shortenToFit(context, floor);
  const verdict = verdictOf(counted, context);
  if (verdict !== 'over')
    return planCandidate(context, { ...candidate, count: counted }, before, verdict, shortened);
  // The marker never costs the send: planned on the estimate's upper bound it may go in where the
  // count then says the request is over, when without it the request would not be.
  const bare = withoutMarker(context, candidate);
  const bareVerdict = bare ? verdictOf(bare.count, context) : 'over';
  if (bare && bareVerdict !== 'over') return planCandidate(context, bare, before, bareVerdict, shortened);
  // Over the budget, whose margins are for a count's error, is not yet over the window: a request
  // whose least count still leaves the reply its reserve goes out for the provider to judge.
  const shortest = { ...candidate, count: counted };
  for (const last of bare ? [shortest, bare] : [shortest])
    if (last.count.low <= context.limit) return planCandidate(context, last, before, 'uncertain', shortened);
  return { kind: 'over', count: counted, messages: candidate.messages };
}

/**
 * The candidate without its prune marker: the same turns left out, nothing in their place, and no
 * cut kept for the next send (it cuts anew), as when not even the bare marker fits.
 */
function withoutMarker(context: FitContext, candidate: Candidate): Candidate | undefined {
  const text = candidate.compression.pruned?.text;
  if (candidate.pruned === undefined || text === undefined) return undefined;
  const marker = markerMessage(context.markers, text);
  const messages = candidate.messages.filter((message) => message !== marker);
  if (messages.length === candidate.messages.length) return undefined;
  const { pruned: _pruned, ...rest } = candidate;
  return { ...rest, messages, count: count(context, messages), stickyCut: undefined };
}

/** Rounds of shortening: each plans with the count the last round was judged by. */
const SHORTEN_ROUNDS = 3;

/**
 * The newest turn's tool results shortened until the count that judges the request says it fits.
 * Each round plans in the units of that count (its tokens per raw estimated token), so a plan made
 * on the calibrated estimate is never judged by a count that runs higher.
 */
function shortenToFit(
  context: FitContext,
  floor: Candidate,
): { candidate: Candidate; counted: RequestCount; shortened: number } {
  let candidate = floor;
  let counted = floor.count;
  const shortened = new Set<string>();
  for (let round = 0; round < SHORTEN_ROUNDS && verdictOf(counted, context) === 'over'; round++) {
    const factor = counted.raw > 0 ? counted.tokens / counted.raw : scalarFactor(context.calibration);
    const shorten = (room: number, factor: number) =>
      shortenNewest({
        messages: candidate.messages,
        state: candidate.compression,
        room: room - Math.ceil(context.fixedRaw * factor),
        estimateOf: (message) => context.cache.message(message).total,
        factor,
        markers: context.markerOptions,
        memo: context.memo,
      });
    // When the rest of the request leaves the results no room on the count's upper bound, they are
    // shortened to what its lower bound leaves within the window's limit: sent as uncertain, for the
    // provider to judge, rather than refused on an estimate's margin.
    const lowFactor = counted.raw > 0 ? counted.low / counted.raw : factor;
    const result = shorten(budgetFor(counted, context), factor) ?? shorten(context.limit, lowFactor);
    if (!result) break;
    candidate = {
      ...candidate,
      kind: withShorten(floor.kind),
      messages: result.messages,
      compression: result.state,
    };
    counted = count(context, candidate.messages);
    for (const id of result.shortened) shortened.add(id);
  }
  return { candidate, counted, shortened: shortened.size };
}

/** The plan that sends a cut candidate as it is, with what it took out of `before`. */
function planCandidate(
  context: FitContext,
  candidate: Candidate,
  before: RequestCount,
  verdict: Exclude<FitVerdict, 'over'>,
  shortened = 0,
): FitOutcome {
  const report: CutReport = {
    kind: candidate.kind,
    freed: freedBetween(context, before, candidate.count),
    droppedTurns: candidate.droppedTurns,
    elided: candidate.elided,
    shortened,
  };
  return plan(
    { ...context, compression: candidate.compression },
    candidate.messages,
    candidate.count,
    verdict,
    report,
    candidate.stickyCut,
    candidate.pruned,
  );
}

/**
 * Tokens a cut took out: the difference of the two counts when they come from the same source, else
 * of the two requests' calibrated estimates (an exact count and an estimate are not in one unit).
 */
function freedBetween(context: FitContext, before: RequestCount, after: RequestCount): number {
  if (before.source === after.source) return Math.max(0, before.tokens - after.tokens);
  const { calibration } = context;
  return Math.max(0, applyCalibration(calibration, before.raw) - applyCalibration(calibration, after.raw));
}

/** A cut kind with shortening added. */
function withShorten(kind: CutReport['kind']): CutReport['kind'] {
  switch (kind) {
    case 'elide':
      return 'elide+shorten';
    case 'drop':
      return 'drop+shorten';
    case 'elide+drop':
      return 'elide+drop+shorten';
    case 'none':
    case 'sticky':
      return 'shorten';
    default:
      return kind;
  }
}

function plan(
  context: FitContext,
  messages: readonly Message[],
  counted: RequestCount,
  verdict: Exclude<FitVerdict, 'over'>,
  cut: CutReport,
  stickyCut: StickyCut | undefined,
  pruned?: FitPlan['pruned'],
): FitOutcome {
  return {
    kind: 'plan',
    plan: {
      messages: messages as Message[],
      count: counted,
      verdict,
      cut,
      compression: context.compression,
      stickyCut,
      ...(pruned ? { pruned } : {}),
    },
  };
}

export type { Calibration, EstimateCache };
