/**
 * @module
 * The discovery probes: one request per kind of inference server, each reading the limits the
 * server actually enforces from its own endpoint, and LiteLLM's claim about the backend behind it.
 * Every probe is a cheap read (a GET, or Ollama's `POST /api/show`); `discoverLimits` runs them at
 * once under one short deadline.
 */
import { isObject, type Json, list, pick, positive, smallest } from './discovery-json.js';
import type { DiscoveryProbe } from './discovery-probe.js';
import { ollamaLoaded, ollamaShow } from './ollama-probes.js';

/** llama.cpp `GET /props`: `n_ctx` at the top level and per slot in `default_generation_settings`. */
const llamacpp: DiscoveryProbe = {
  server: 'llamacpp',
  endpoint: '/props',
  request: () => ({ path: '/props' }),
  parse(body) {
    if (!isObject(body)) return undefined;
    const settings = isObject(body.default_generation_settings) ? body.default_generation_settings : {};
    // The per-slot n_ctx (n_ctx / --parallel) is what one request gets; take the smaller figure.
    const contextLength = smallest(positive(body.n_ctx), positive(settings.n_ctx));
    if (contextLength === undefined) return undefined;
    const params = isObject(settings.params) ? settings.params : {};
    const outputCap = positive(params.n_predict) ?? positive(settings.n_predict);
    const model = typeof body.model_alias === 'string' ? body.model_alias : undefined;
    return { contextLength, ...(outputCap ? { outputCap } : {}), ...(model ? { model } : {}) };
  },
};

/** LM Studio `GET /api/v0/models`: `loaded_context_length` of a loaded model, else `max_context_length`. */
const lmstudio: DiscoveryProbe = {
  server: 'lmstudio',
  endpoint: '/api/v0/models',
  request: () => ({ path: '/api/v0/models' }),
  parse(body, model) {
    const entry = pick(list(body), model, (item) => [item.id]);
    if (!entry) return undefined;
    const trained = positive(entry.max_context_length);
    // A model that is not loaded yet is loaded on demand with at most its maximum.
    const contextLength = positive(entry.loaded_context_length) ?? trained;
    if (contextLength === undefined) return undefined;
    return {
      contextLength,
      ...(trained ? { trainedContextLength: trained } : {}),
      ...(typeof entry.id === 'string' ? { model: entry.id } : {}),
    };
  },
};

/** vLLM (and SGLang) `GET /v1/models`: `max_model_len` per served model. */
const vllm: DiscoveryProbe = {
  server: 'vllm',
  endpoint: '/v1/models',
  request: () => ({ path: '/v1/models' }),
  parse(body, model) {
    const entries = list(body).filter((item) => positive(item.max_model_len) !== undefined);
    const entry = pick(entries, model, (item) => [item.id, item.root]);
    if (!entry) return undefined;
    return {
      contextLength: positive(entry.max_model_len),
      ...(typeof entry.id === 'string' ? { model: entry.id } : {}),
    };
  },
};

/**
 * Text Generation Inference `GET /info`: `max_total_tokens` (prompt + new tokens) for the one
 * model it serves (`Info` in `router/src/lib.rs`; `max_input_length` became `max_input_tokens`).
 */
const tgi: DiscoveryProbe = {
  server: 'tgi',
  endpoint: '/info',
  request: () => ({ path: '/info' }),
  parse(body) {
    if (!isObject(body) || typeof body.model_id !== 'string') return undefined;
    const contextLength = positive(body.max_total_tokens);
    if (contextLength === undefined) return undefined;
    return { contextLength, model: body.model_id };
  },
};

/**
 * LiteLLM proxy `GET /model/info`: `max_input_tokens` and `max_output_tokens` per model group, and
 * the backend (`litellm_provider`). These are what LiteLLM claims from its own model map, not what
 * the backend enforces: a claim, ranked below every server's own report.
 */
const litellm: DiscoveryProbe = {
  server: 'litellm',
  endpoint: '/model/info',
  request: () => ({ path: '/model/info' }),
  parse(body, model) {
    const entries = list(body).filter((item) => isObject(item.model_info));
    const entry = pick(entries, model, (item) => [item.model_name]);
    if (!entry) return undefined;
    const info = entry.model_info as Json;
    const contextLength = positive(info.max_input_tokens) ?? positive(info.max_tokens);
    const outputCap = positive(info.max_output_tokens);
    if (contextLength === undefined && outputCap === undefined) return undefined;
    return {
      claimed: true,
      ...(litellmBackend(entry, info) ? { backend: litellmBackend(entry, info) } : {}),
      ...(contextLength ? { contextLength } : {}),
      ...(outputCap ? { outputCap } : {}),
      ...(typeof entry.model_name === 'string' ? { model: entry.model_name } : {}),
    };
  },
};

/** LiteLLM's provider of a deployment: `model_info.litellm_provider`, else the `provider/` of its model. */
/**
 * The Gemini API's Models API (`GET /v1beta/models`): each model's `inputTokenLimit` (the window,
 * which the prompt alone is checked against) and `outputTokenLimit`, as a Gemini-compatible server
 * or gateway answers it (Google's own host is never probed, like every hosted API).
 */
const gemini: DiscoveryProbe = {
  server: 'gemini',
  endpoint: '/v1beta/models',
  request: () => ({ path: '/v1beta/models' }),
  parse(body, model) {
    const entries = isObject(body) && Array.isArray(body.models) ? body.models.filter(isObject) : [];
    const named = entries.filter((item) => positive(item.inputTokenLimit) !== undefined);
    const entry = pick(named, model, (item) => [item.name, String(item.name).replace(/^models\//, '')]);
    if (!entry) return undefined;
    const outputCap = positive(entry.outputTokenLimit);
    return {
      contextLength: positive(entry.inputTokenLimit),
      ...(outputCap ? { outputCap } : {}),
      ...(typeof entry.name === 'string' ? { model: entry.name.replace(/^models\//, '') } : {}),
    };
  },
};

function litellmBackend(entry: Json, info: Json): string | undefined {
  if (typeof info.litellm_provider === 'string') return info.litellm_provider;
  const params = isObject(entry.litellm_params) ? entry.litellm_params : {};
  const routed = typeof params.model === 'string' ? params.model : '';
  return routed.includes('/') ? routed.slice(0, routed.indexOf('/')) : undefined;
}

/**
 * The probes in order of trust: a server's own runtime setting (`n_ctx`, Ollama's loaded length or
 * `num_ctx`, LM Studio's loaded length) first, then vLLM's `max_model_len` and TGI's
 * `max_total_tokens`, then what a gateway claims.
 */
export const DISCOVERY_PROBES: readonly DiscoveryProbe[] = [
  llamacpp,
  ollamaShow,
  ollamaLoaded,
  lmstudio,
  vllm,
  tgi,
  litellm,
  gemini,
];
