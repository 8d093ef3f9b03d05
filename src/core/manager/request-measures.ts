/**
 * @module
 * What recovery and callers outside `fit` ask of a manager: a request measured as `fit` would, a
 * request fitted elsewhere recorded as sent, every old tool result elided (the forced prune), a
 * compaction with the manager's figures, a count a provider stated or an endpoint gave.
 */
import type { CompactionResult } from '../compact/index.js';
import { compactTranscript } from '../compact/index.js';
import { elideToolResults } from '../compress/index.js';
import {
  applyCalibration,
  calibratedLowerBound,
  calibrationInputOf,
  raiseCalibration,
  scalarFactor,
} from '../tokens/index.js';
import { type ChatRequest, type Message, splitTurns } from '../transcript/index.js';
import type { FitResult } from './fit-result.js';
import { budgetOf, cacheFor, type ManagerCore, modelOf, rendered, schemaTokens } from './manager-core.js';
import type { ManagerCompactOptions, RequestMeasure } from './manager-options.js';

/** The estimate of a request as `fit` would compare it to the budget (see `ContextWindowManager.measure`). */
export function measureRequest(core: ManagerCore, request: ChatRequest): RequestMeasure {
  const model = modelOf(core, request);
  const cache = cacheFor(core, model);
  const { budget, window, reserve } = budgetOf(core, model, request.maxTokens);
  const input = calibrationInputOf(
    cache.request({ messages: rendered(core, request.messages), tools: request.tools }),
  );
  return {
    estimate: applyCalibration(core.calibration, input),
    low: calibratedLowerBound(core.calibration, input),
    budget,
    window,
    reserve,
    schemaTokens: schemaTokens(core, request, cache),
  };
}

/** What `fit` reports, for a request fitted elsewhere (see `ContextWindowManager.describeFitted`). */
export function describeFitted(
  core: ManagerCore,
  request: ChatRequest,
  original: readonly Message[],
): FitResult {
  const model = modelOf(core, request);
  const cache = cacheFor(core, model);
  const measure = measureRequest(core, request);
  const breakdown = cache.request(request);
  core.requests.recordSent(request, { breakdown, model, cache, extendsCounted: false });
  const droppedTurns = Math.max(
    0,
    splitTurns(original).turns.length - splitTurns(request.messages).turns.length,
  );
  return {
    request,
    estimate: measure.estimate,
    countSource: core.calibration.observations > 0 ? 'calibrated' : 'estimate',
    verdict: 'fits',
    budget: measure.budget,
    window: measure.window,
    reserve: measure.reserve,
    schemaTokens: measure.schemaTokens,
    cut: { kind: droppedTurns > 0 ? 'drop' : 'none', freed: 0, droppedTurns, elided: 0, shortened: 0 },
    pruned: droppedTurns > 0,
    droppedTurns,
    breakdown,
    anchored: false,
    notices: [],
    compressed: 0,
    recall: [],
  };
}

/** Every tool result outside the newest run elided (see `ContextWindowManager.compress`). */
export function elideAll(core: ManagerCore, request: ChatRequest): { escalated: string[] } {
  const cache = cacheFor(core, modelOf(core, request));
  const before = measureRequest(core, request);
  const result = elideToolResults({
    messages: request.messages,
    state: core.compression,
    all: true,
    estimateOf: (message) => cache.message(message).total,
    factor: scalarFactor(core.calibration),
    memo: core.renders,
    recall: core.options.recall === true,
  });
  core.compression = result.state;
  if (result.elided.length > 0)
    core.emit({
      type: 'cut',
      kind: 'elide',
      freed: Math.max(0, before.estimate - result.estimate),
      droppedTurns: 0,
      elided: result.elided.length,
      shortened: 0,
      after: result.estimate,
      budget: before.budget,
    });
  return { escalated: result.elided };
}

/** A compaction with the manager's figures (see `ContextWindowManager.compact`). */
export async function compactHistory(
  core: ManagerCore,
  options: ManagerCompactOptions,
  rebase: (messages: readonly Message[]) => void,
): Promise<CompactionResult> {
  const model = modelOf(core, options);
  const cache = cacheFor(core, model);
  const { budget, window } = budgetOf(core, model, options.maxTokens);
  const recallId = core.compression.nextRecallId;
  const result = await compactTranscript({
    messages: options.messages,
    tools: options.tools ?? [],
    ...(model === undefined ? {} : { model }),
    ...(options.format === undefined ? {} : { format: options.format }),
    ...(options.summarize === undefined ? {} : { summarize: options.summarize }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.summaryMaxTokens === undefined ? {} : { summaryMaxTokens: options.summaryMaxTokens }),
    ...(options.keepTurns === undefined ? {} : { keepTurns: options.keepTurns }),
    window,
    budget,
    recallId,
    estimate: (request) =>
      applyCalibration(
        core.calibration,
        cache.request({
          messages: rendered(core, request.messages),
          tools: request.tools as ChatRequest['tools'],
        }).total,
      ),
  });
  if (result.summary !== undefined)
    core.compression = {
      ...core.compression,
      nextRecallId: Math.max(core.compression.nextRecallId, recallId + 1),
    };
  if (result.learnedWindow !== undefined && model !== undefined)
    core.limits.learnWindow(model, result.learnedWindow);
  if (result.ok && result.messages !== undefined) rebase(result.messages);
  return result;
}

/** Raises the calibration from a stated prompt count (see `ContextWindowManager.calibrateFromCount`). */
export function calibrateFromCount(
  core: ManagerCore,
  { request, promptTokens }: { request: ChatRequest; promptTokens: number },
): void {
  const cache = cacheFor(core, modelOf(core, request));
  const breakdown = cache.request({ messages: rendered(core, request.messages), tools: request.tools });
  const before = scalarFactor(core.calibration);
  core.calibration = raiseCalibration(core.calibration, {
    reported: promptTokens,
    raw: calibrationInputOf(breakdown),
  });
  const factor = scalarFactor(core.calibration);
  if (factor !== before)
    core.emit({ type: 'calibrate', factor, reported: promptTokens, raw: breakdown.total });
}

/** An exact count of a request not sent (see `ContextWindowManager.noteCount`). */
export function noteCount(
  core: ManagerCore,
  { request, promptTokens }: { request: ChatRequest; promptTokens: number },
): void {
  if (!(promptTokens > 0)) return;
  const model = modelOf(core, request);
  const cache = cacheFor(core, model);
  core.requests.recordCount(request, promptTokens, { breakdown: cache.request(request), model, cache });
}
