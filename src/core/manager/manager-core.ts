/**
 * @module
 * The state one manager works on, shared by its parts: what it was told, what it learned, what it
 * remembers of the run, and how it counts. The parts (`fit-request.ts`, `observe-usage.ts`,
 * `request-measures.ts`) are functions of it; `ContextWindowManager` is their public face.
 */
import { type Budget, computeBudget } from '../budget/index.js';
import {
  applyCompression,
  type CompressionState,
  createCompressionState,
  type RenderMemo,
} from '../compress/index.js';
import { SchemaFloorTracker } from '../schemas/index.js';
import {
  applyCalibration,
  type Calibration,
  createCalibration,
  type EstimateCache,
  estimateCacheFor,
  tokenizerFamilyOf,
} from '../tokens/index.js';
import type { ChatRequest, Message, UserMessage } from '../transcript/index.js';
import { CountedRequests } from './counted-requests.js';
import type { LocalCounters } from './counter-trust.js';
import type { ManagerEvent } from './events.js';
import { LearnedLimits } from './learned-limits.js';
import type { ContextWindowManagerOptions } from './manager-options.js';
import type { StickyCut } from './sticky-cut.js';

/** A manager's working state. */
export interface ManagerCore {
  readonly options: ContextWindowManagerOptions;
  readonly counters: LocalCounters;
  readonly limits: LearnedLimits;
  readonly requests: CountedRequests;
  calibration: Calibration;
  /** Where the run's last cut left the history; later sends keep it until the budget moves it. */
  cut: StickyCut | undefined;
  compression: CompressionState;
  readonly renders: RenderMemo;
  readonly markers: Map<string, UserMessage>;
  readonly schemaFloor: SchemaFloorTracker;
  readonly caches: Map<string, EstimateCache>;
  readonly emit: (event: ManagerEvent) => void;
}

/** A fresh core for `options`, emitting through `emit`. */
export function createManagerCore(
  options: ContextWindowManagerOptions,
  emit: (event: ManagerEvent) => void,
): ManagerCore {
  return {
    options,
    counters: {
      exact: options.exact ? estimateCacheFor({ counter: options.exact }) : undefined,
      tokenizer: options.tokenizer ? estimateCacheFor({ counter: options.tokenizer }) : undefined,
    },
    limits: new LearnedLimits(options),
    requests: new CountedRequests(),
    calibration: createCalibration(),
    cut: undefined,
    compression: createCompressionState(),
    renders: new WeakMap(),
    markers: new Map(),
    schemaFloor: new SchemaFloorTracker(),
    caches: new Map(),
    emit,
  };
}

/** The model a request is about: its own, else the manager's. */
export function modelOf(core: ManagerCore, request: { model?: string | undefined }): string | undefined {
  return request.model ?? core.options.model;
}

/** The estimate cache for a model: the caller's counter, else the estimator of the model's family. */
export function cacheFor(core: ManagerCore, model: string | undefined): EstimateCache {
  const counter = core.options.counter;
  const key = counter ? `counter:${counter.name}` : `family:${tokenizerFamilyOf(model)}`;
  let cache = core.caches.get(key);
  if (!cache) {
    cache = estimateCacheFor(counter ? { counter } : { family: tokenizerFamilyOf(model) });
    core.caches.set(key, cache);
  }
  return cache;
}

/** The budget in force for a model and a request's `max_tokens`. */
export function budgetOf(
  core: ManagerCore,
  model: string | undefined,
  maxTokens: number | undefined,
): Budget {
  return computeBudget({
    contextLength: core.limits.windowFor(model),
    outputCap: core.limits.outputCapFor(model),
    maxTokens,
    reserve: core.options.reserve,
    safetyRatio: core.options.safetyRatio,
    windowCheck: core.limits.windowCheckFor(model),
  });
}

/** Messages with the run's stored levels (elided, shortened results) applied, as they are sent. */
export function rendered(core: ManagerCore, messages: readonly Message[]): Message[] {
  return applyCompression({ messages, state: core.compression, memo: core.renders }) as Message[];
}

/** Calibrated tokens of a request's tool schemas. */
export function schemaTokens(core: ManagerCore, request: ChatRequest, cache: EstimateCache): number {
  return applyCalibration(core.calibration, cache.tools(request.tools).total);
}
