/**
 * @module
 * `fit` as the manager runs it: a new run detected, the budget, the schema-floor notice, the plan
 * (`fit-pipeline.ts`), the error when nothing fits, the cut recorded and reported, the request made
 * (`finish-fit.ts`) and remembered as sent.
 */
import type { Budget } from '../budget/index.js';
import { type EstimateCache, REQUEST_OVERHEAD, restartCalibration, scalarFactor } from '../tokens/index.js';
import { assertPairing, type ChatRequest, requireChatRequest } from '../transcript/index.js';
import { withListsUnchanged } from '../transcript/transcript-index.js';
import { trustedCounter } from './counter-trust.js';
import { fitResult, fittedRequest, truncatedError } from './finish-fit.js';
import { type FitContext, type FitPlan, planFit } from './fit-pipeline.js';
import type { CutReport, FitResult } from './fit-result.js';
import { budgetOf, cacheFor, type ManagerCore, modelOf, schemaTokens } from './manager-core.js';
import type { ManagerNotice } from './manager-notice.js';
import { budgetFor } from './request-count.js';

/**
 * Fits `request` (see `ContextWindowManager.fit`). Its steps ask many things of the same lists, which
 * no step changes: each list is matched to its walk once.
 */
export function fitRequest(core: ManagerCore, request: ChatRequest): FitResult {
  return withListsUnchanged(() => fitOnce(core, request));
}

function fitOnce(core: ManagerCore, request: ChatRequest): FitResult {
  requireChatRequest(request, 'fit');
  assertPairing(request.messages);
  const model = modelOf(core, request);
  const cache = cacheFor(core, model);
  if (core.requests.isNewRun(request.messages)) startNewRun(core);
  const limits = budgetOf(core, model, request.maxTokens);
  const notices = schemaNotice(core, request, cache, limits);
  const context = fitContext(core, request, cache, limits);
  const outcome = planFit(context);
  if (outcome.kind === 'over')
    throw truncatedError({
      request,
      cache,
      limits,
      messages: outcome.messages,
      count: outcome.count,
      calibration: core.calibration,
      schemaTokens: schemaTokens(core, request, cache),
      sources: schemaFloorCheck(core, request, cache, limits).floor.sources,
    });
  const { plan } = outcome;
  core.compression = plan.compression;
  core.cut = plan.stickyCut;
  if (plan.cut.kind !== 'none' && plan.cut.kind !== 'sticky') emitCut(core, plan.cut, context, plan);
  return finish(core, { request, model, cache, limits, plan, notices });
}

/** A new run: calibration afresh (what the reports showed of the tokenizer stays), no anchor, no cut. */
export function startNewRun(core: ManagerCore): void {
  core.calibration = restartCalibration(core.calibration);
  forgetRun(core);
}

/** Forgets the run's requests and cut; the calibration and the learned limits stay. */
export function forgetRun(core: ManagerCore): void {
  core.requests.forgetRun();
  core.cut = undefined;
  core.schemaFloor.resetNotices();
}

function fitContext(
  core: ManagerCore,
  request: ChatRequest,
  cache: EstimateCache,
  limits: Budget,
): FitContext {
  const trusted = trustedCounter(core.counters, core.calibration);
  const fixedRaw = cache.tools(request.tools).total + REQUEST_OVERHEAD;
  return {
    request,
    budget: limits.budget,
    counted: limits.counted,
    limit: limits.window - limits.reserve,
    fixedRaw,
    planning: trusted
      ? {
          cache: trusted.cache,
          factor: 1 + trusted.spread,
          fixedRaw: trusted.cache.tools(request.tools).total + REQUEST_OVERHEAD,
        }
      : { cache, factor: scalarFactor(core.calibration), fixedRaw },
    cache,
    ...(trusted ? { exact: trusted } : {}),
    calibration: core.calibration,
    anchorFor: (candidate, counter) => core.requests.anchorFor(candidate, counter ?? cache),
    compression: core.compression,
    cut: core.cut,
    memo: core.renders,
    markers: core.markers,
    markerOptions: { recall: core.options.recall === true },
    appendRate: core.requests.appendRate,
    runway: core.options.cutRunway,
    elide: core.options.compress !== false,
  };
}

function schemaFloorCheck(core: ManagerCore, request: ChatRequest, cache: EstimateCache, limits: Budget) {
  return core.schemaFloor.check({
    tools: request.tools,
    messages: request.messages,
    counter: cache.counter,
    messageEstimate: (message) => cache.message(message).total,
    budget: limits.budget,
    window: limits.window,
  });
}

function schemaNotice(
  core: ManagerCore,
  request: ChatRequest,
  cache: EstimateCache,
  limits: Budget,
): ManagerNotice[] {
  const { notice } = schemaFloorCheck(core, request, cache, limits);
  if (!notice) return [];
  core.emit({ type: 'notice', level: notice.level, message: notice.message, notice });
  return [notice];
}

function emitCut(core: ManagerCore, cut: CutReport, context: FitContext, plan: FitPlan): void {
  core.emit({
    type: 'cut',
    kind: cut.kind as Exclude<CutReport['kind'], 'none' | 'sticky'>,
    freed: cut.freed,
    droppedTurns: cut.droppedTurns,
    elided: cut.elided,
    shortened: cut.shortened,
    after: plan.count.tokens,
    budget: budgetFor(plan.count, context),
  });
}

/** The plan made a request: `max_tokens` clamped, pairing re-checked, recorded as sent. */
function finish(
  core: ManagerCore,
  options: {
    request: ChatRequest;
    model: string | undefined;
    cache: EstimateCache;
    limits: Budget;
    plan: FitPlan;
    notices: ManagerNotice[];
  },
): FitResult {
  const { request, model, cache, limits, plan, notices } = options;
  const fitted = fittedRequest({
    request,
    plan,
    limits,
    outputCap: core.limits.outputCapFor(model),
    clamp: core.options.clamp,
  });
  const breakdown = cache.request(fitted);
  core.requests.noteAppended(plan.count);
  core.requests.recordSent(fitted, { breakdown, model, cache, extendsCounted: true });
  const result = fitResult({
    request,
    fitted,
    plan,
    limits,
    breakdown,
    schemaTokens: schemaTokens(core, request, cache),
    notices,
    compression: core.compression,
  });
  core.emit({
    type: 'fit',
    estimate: result.estimate,
    budget: result.budget,
    window: result.window,
    pruned: result.pruned,
    droppedTurns: result.droppedTurns,
    anchored: result.anchored,
    countSource: result.countSource,
    verdict: result.verdict,
    cut: plan.cut.kind,
  });
  return result;
}
