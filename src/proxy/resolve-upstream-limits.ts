/**
 * @module
 * The limits in force for an upstream model: the one place the proxy asks, so the resolution order
 * lives in `src/models` and nowhere else.
 */

import { SpillwayError, type WindowCheck } from '../core/index.js';
import {
  type DiscoveryCache,
  type DiscoveryServer,
  type LimitSource,
  modelNameProblem,
  type ResolvedLimits,
  resolveLimits,
} from '../models/index.js';
import type { ProxyModelSettings } from './proxy-config.js';
import type { ProxyLogEntry } from './proxy-runtime.js';
import type { LearnedModelLimits } from './proxy-state.js';

/** The window and output cap for one model, with where each came from. */
export interface UpstreamLimits {
  contextLength: number;
  outputCap?: number;
  /** `prompt` when the upstream checks the prompt alone against the window (llama.cpp). */
  windowCheck?: WindowCheck;
  /** The server discovery found answering for itself (not a gateway's claim), if any. */
  server?: DiscoveryServer;
  /**
   * The window the upstream reports for itself (the zero-cost probe, or discovery of a server that
   * is no gateway), whatever won: it confirms a window learned from an overflow for every client.
   */
  discoveredContextLength?: number;
  source: { contextLength: LimitSource; outputCap: LimitSource };
}

/** Inputs of {@link resolveUpstreamLimits}. */
export interface ResolveUpstreamLimitsOptions {
  /** The model the request names; requests without one resolve to the configured values or the fallback. */
  model: string | undefined;
  /** The upstream's base URL, for live discovery (vLLM, llama.cpp, LiteLLM, Ollama, LM Studio). */
  baseUrl: string;
  provider?: string;
  settings: ProxyModelSettings;
  learned: LearnedModelLimits;
  /** `false`: never send the zero-cost probe (the config's `probe_limits`). */
  probe?: boolean;
  /** Credentials for discovery probes (the client's own, as it sent them). */
  headers?: Record<string, string>;
  cache: DiscoveryCache;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** Where what resolution found worth telling goes, once per proxy (its discovery cache) and finding. */
  log?: (entry: ProxyLogEntry) => void;
}

/**
 * How long limits resolved for one set of inputs are reused while the discovery cache is unchanged:
 * a discovery result that expires is probed again at most this much later than without the reuse.
 */
export const RESOLVED_LIMITS_REUSE_MS = 1_000;

/** The most sets of inputs whose limits one proxy keeps (least recently used forgotten first). */
const RESOLVED_LIMITS_ENTRIES = 128;

/** Limits resolved per proxy (its discovery cache) and inputs, with when and at which cache generation. */
const resolvedLimits = new WeakMap<
  DiscoveryCache,
  Map<string, { at: number; generation: number; limits: UpstreamLimits }>
>();

/** What the limits of a request depend on besides the discovery cache, as one key. */
function inputsKey(options: ResolveUpstreamLimitsOptions): string {
  const { model, baseUrl, provider, settings, learned, probe } = options;
  return JSON.stringify([model ?? null, baseUrl, provider ?? null, settings, learned, probe ?? null]);
}

/**
 * {@link resolveUpstreamLimits}, with what it resolved reused for the same inputs (model, upstream,
 * settings, the limits learned for the client) for {@link RESOLVED_LIMITS_REUSE_MS} of the discovery
 * cache's clock, as long as the
 * discovery cache has loaded, forgotten or evicted nothing since: resolution is the same function of
 * the same inputs and the same cached answers, so it gives the same limits.
 *
 * @example
 * const limits = await resolveUpstreamLimitsReused({ model: 'glm5.2', baseUrl, settings: {}, learned: {}, cache });
 */
export async function resolveUpstreamLimitsReused(
  options: ResolveUpstreamLimitsOptions,
): Promise<UpstreamLimits> {
  const { cache, model } = options;
  // An id no server lists is refused there, and never made part of a key.
  if (model !== undefined && modelNameProblem(model) !== undefined) return resolveUpstreamLimits(options);
  let known = resolvedLimits.get(cache);
  if (!known) {
    known = new Map();
    resolvedLimits.set(cache, known);
  }
  const key = inputsKey(options);
  const entry = known.get(key);
  // The cache's own clock: a result reused is never older, by that clock, than the reuse allows.
  const at = cache.clock();
  if (entry && entry.generation === cache.generation && at - entry.at < RESOLVED_LIMITS_REUSE_MS)
    return entry.limits;
  const limits = await resolveUpstreamLimits(options);
  known.delete(key);
  known.set(key, { at, generation: cache.generation, limits });
  for (const oldest of known.keys()) {
    if (known.size <= RESOLVED_LIMITS_ENTRIES) break;
    known.delete(oldest);
  }
  return limits;
}

/** What each proxy (keyed by its discovery cache) has logged about limits already. */
const told = new WeakMap<DiscoveryCache, Set<string>>();

/**
 * Logs, once per proxy, each notice and error resolution reported: a window the upstream stated or
 * its probe found, overriding the config or a gateway's claim; a discovery target that cannot be
 * reached.
 */
function tellOnce(
  resolved: ResolvedLimits,
  cache: DiscoveryCache,
  log: ((entry: ProxyLogEntry) => void) | undefined,
): void {
  if (!log) return;
  const seen = told.get(cache) ?? new Set<string>();
  told.set(cache, seen);
  const entries: ProxyLogEntry[] = [
    ...(resolved.notices ?? []).map(({ kind, message, ...fields }) => ({
      level: 'info' as const,
      event: 'limits',
      notice: kind,
      model: resolved.model,
      ...fields,
      message,
    })),
    ...(resolved.errors ?? []).map(({ source, code, message, baseUrl }) => ({
      level: 'warn' as const,
      event: 'limits_error',
      model: resolved.model,
      source,
      code,
      base_url: baseUrl,
      message,
    })),
  ];
  for (const entry of entries) {
    const key = JSON.stringify(entry);
    if (seen.has(key)) continue;
    if (seen.size >= 1_024) seen.clear();
    seen.add(key);
    log(entry);
  }
}

/**
 * Resolves a model's limits in the one order (`resolveLimits` in `src/models`): a configured value
 * marked hard > a figure the upstream stated in a rejection (kept in the store) > the zero-cost
 * probe > what the upstream reports about itself > what a gateway claims > the catalog > a
 * configured value > the 8,192 fallback. So a window the upstream stated wins over the config from
 * the next request on, unless the config marks its value hard; what overrode what is logged once. A
 * model id over `MAX_MODEL_NAME_CHARS` is the client's mistake: `invalid_request`
 * (`model_name_too_long`), which the proxy answers 400.
 *
 * @example
 * const limits = await resolveUpstreamLimits({ model: 'glm5.2', baseUrl, settings: {}, learned: {}, cache });
 * // { contextLength: 21000, outputCap: 9600, source: { contextLength: 'probed', outputCap: 'claimed:/model/info' } }
 */
export async function resolveUpstreamLimits({
  model,
  baseUrl,
  provider,
  settings,
  learned,
  headers,
  cache,
  fetch: fetchImpl,
  signal,
  log,
  probe,
}: ResolveUpstreamLimitsOptions): Promise<UpstreamLimits> {
  const problem = model === undefined ? undefined : modelNameProblem(model);
  if (problem !== undefined)
    throw new SpillwayError('invalid_request', problem, {
      data: { code: 'model_name_too_long', param: 'model' },
    });
  const config = {
    ...(settings.contextLength === undefined ? {} : { contextLength: settings.contextLength }),
    ...(settings.outputCap === undefined ? {} : { outputCap: settings.outputCap }),
  };
  const hard = {
    ...(settings.hardContextLength === undefined ? {} : { contextLength: settings.hardContextLength }),
    ...(settings.hardOutputCap === undefined ? {} : { outputCap: settings.hardOutputCap }),
  };
  const resolved = await resolveLimits({
    model: model === undefined || model.trim() === '' ? 'default' : model,
    baseUrl,
    ...(provider === undefined ? {} : { provider }),
    config,
    hard,
    ...(probe === false ? { probe: false } : {}),
    learned: model === undefined ? {} : { [model]: learned },
    ...(headers === undefined ? {} : { headers }),
    cache,
    ...(fetchImpl === undefined ? {} : { fetch: fetchImpl }),
    ...(signal === undefined ? {} : { signal }),
  });
  tellOnce(resolved, cache, log);
  const discovered = resolved.figures.contextLength.find(
    ({ source }) => source === 'probed' || source.startsWith('discovered:'),
  );
  return {
    contextLength: resolved.contextLength,
    ...(resolved.outputCap === undefined ? {} : { outputCap: resolved.outputCap }),
    ...(resolved.windowCheck === undefined ? {} : { windowCheck: resolved.windowCheck }),
    ...(resolved.discovery && !resolved.discovery.claimed ? { server: resolved.discovery.server } : {}),
    ...(discovered === undefined ? {} : { discoveredContextLength: discovered.value }),
    source: resolved.source,
  };
}
