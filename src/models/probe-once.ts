/**
 * @module
 * The zero-cost probe, cached like discovery: one probe per server, model and cache lifetime,
 * shared by concurrent lookups.
 */
import { type DiscoverLimitsOptions, serverRoot } from './discover-limits.js';
import { DiscoveryCache, defaultDiscoveryCache } from './discovery-cache.js';
import { type ProbeOutcome, probeLimits } from './probe-limits.js';

export type { ProbeOutcome };

/**
 * {@link probeLimits}, through the discovery cache (`cache: false` always probes). A probe the
 * caller aborted, or one that failed, is not kept: it proves nothing about the server.
 *
 * @example
 * const outcome = await probeOnce({ baseUrl: 'http://litellm:4000/v1', model: 'glm5.2', cache });
 */
export async function probeOnce(
  options: Omit<DiscoverLimitsOptions, 'model'> & { model: string },
): Promise<ProbeOutcome> {
  const { cache: given, ...rest } = options;
  const cache = given === undefined ? defaultDiscoveryCache : given;
  if (!(cache instanceof DiscoveryCache)) return probeLimits(rest);
  const root = serverRoot(options.baseUrl);
  const outcome = await cache.probe(root, options.model, () => probeLimits(rest));
  if (options.signal?.aborted || outcome.result === 'failed')
    cache.forget(root, options.model, { probe: true });
  return outcome;
}
