/**
 * @module
 * The limits in force for an upstream model: the one place the proxy asks, so the resolution order
 * lives in `src/models` and nowhere else.
 */

import type { ProxyModelSettings } from '../config/proxy-config.js';
import { SpillwayError } from '../core/index.js';
import { type DiscoveryCache, type LimitSource, modelNameProblem, resolveLimits } from '../models/index.js';
import type { LearnedModelLimits } from './proxy-state.js';

/** The window and output cap for one model, with where each came from. */
export interface UpstreamLimits {
  contextLength: number;
  outputCap?: number;
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
  /** Credentials for discovery probes (the client's own, as it sent them). */
  headers?: Record<string, string>;
  cache: DiscoveryCache;
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/**
 * Resolves a model's limits in the order configuration > learned from the upstream's errors > live
 * discovery of the upstream > catalog > the 8,192 fallback (`resolveLimits` in `src/models`). A model
 * id over `MAX_MODEL_NAME_CHARS` is the client's mistake: `invalid_request` (`model_name_too_long`),
 * which the proxy answers 400.
 *
 * @example
 * const limits = await resolveUpstreamLimits({ model: 'glm5.2', baseUrl, settings: {}, learned: {}, cache });
 * // { contextLength: 9600, outputCap: 9600, source: { contextLength: 'discovery:/model/info', … } }
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
  const resolved = await resolveLimits({
    model: model === undefined || model.trim() === '' ? 'default' : model,
    baseUrl,
    ...(provider === undefined ? {} : { provider }),
    config,
    learned: model === undefined ? {} : { [model]: learned },
    ...(headers === undefined ? {} : { headers }),
    cache,
    ...(fetchImpl === undefined ? {} : { fetch: fetchImpl }),
    ...(signal === undefined ? {} : { signal }),
  });
  return {
    contextLength: resolved.contextLength,
    ...(resolved.outputCap === undefined ? {} : { outputCap: resolved.outputCap }),
    source: resolved.source,
  };
}
