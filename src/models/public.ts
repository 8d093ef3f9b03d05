/**
 * @module
 * `spillway/models`: the limits of a model as far as they can be known — resolved in one order
 * (stated > probed > discovered > claimed > catalog > config), discovered from a running server,
 * probed at zero cost, looked up in the catalog — and a server's counting endpoint.
 *
 * @example
 * import { resolveLimits } from 'spillway/models';
 * const limits = await resolveLimits({ model: 'qwen2.5:7b', baseUrl: 'http://localhost:11434/v1' });
 */
export {
  type CountEndpointKind,
  createServerCounter,
  type DiscoveredLimits,
  type DiscoveryOutcome,
  describeLimitSource,
  detectCountEndpoint,
  discoverLimits,
  discoverServer,
  LIMIT_SOURCE_ORDER,
  type LimitSource,
  type LimitsReport,
  limitsReport,
  lookupModel,
  type ProbeOutcome,
  probeLimits,
  type ResolvedLimits,
  type ResolveLimitsOptions,
  resolveLimits,
  type ServerCounter,
} from './index.js';
