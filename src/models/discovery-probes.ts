/**
 * @module
 * The discovery probes: one request per kind of local inference server, each reading the limits the
 * server actually enforces from its own endpoint. Every probe is a cheap read (a GET, or Ollama's
 * `POST /api/show`); {@link discoverLimits} runs them at once under one short deadline.
 */

/** The servers discovery recognizes. */
export type DiscoveryServer = 'llamacpp' | 'ollama' | 'lmstudio' | 'vllm' | 'litellm';

/** What a server reported about a model. */
export interface DiscoveredLimits {
  server: DiscoveryServer;
  /** The endpoint the figures came from (`/props`, `/api/show`, `/v1/models`…). */
  endpoint: string;
  /** The window the server enforces. */
  contextLength?: number;
  /** The server's reply cap, when it has one. */
  outputCap?: number;
  /** The window the model was trained on, when the server reports it apart (Ollama, LM Studio). */
  trainedContextLength?: number;
  /** The model id as the server reported it. */
  model?: string;
}

/** One discovery probe. */
export interface DiscoveryProbe {
  server: DiscoveryServer;
  endpoint: string;
  /**
   * `true` when the request names the model (Ollama's `/api/show`): it is sent per model, and only
   * for a model the server's own list carries. Other probes read one answer for every model.
   */
  perModel?: boolean;
  /** The request to send, relative to the server root; `undefined` to skip (no model to ask about). */
  request(model: string | undefined): { path: string; init?: RequestInit } | undefined;
  /** The limits in a 2xx JSON body, or `undefined` when the body is not this server's. */
  parse(body: unknown, model: string | undefined): Omit<DiscoveredLimits, 'server' | 'endpoint'> | undefined;
}

/**
 * Ollama's `num_ctx` when neither the model's parameters nor the request set one: 4,096 since
 * Ollama 0.6 (docs/faq.md, "How can I specify the context window size?"). Newer servers may pick a
 * larger default from free VRAM; assuming the smaller one only compacts earlier.
 */
export const OLLAMA_DEFAULT_NUM_CTX = 4_096;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

function smallest(...values: (number | undefined)[]): number | undefined {
  const known = values.filter((value): value is number => value !== undefined);
  return known.length === 0 ? undefined : Math.min(...known);
}

/** The entry of a model list that is `model`: same id, same id ignoring case, or the only entry. */
function pick<T>(entries: T[], model: string | undefined, ids: (entry: T) => unknown[]): T | undefined {
  const wanted = model?.toLowerCase();
  if (wanted !== undefined) {
    const exact = entries.find((entry) => ids(entry).includes(model));
    if (exact) return exact;
    const loose = entries.find((entry) =>
      ids(entry).some((id) => typeof id === 'string' && id.toLowerCase() === wanted),
    );
    if (loose) return loose;
  }
  return entries.length === 1 ? entries[0] : undefined;
}

function list(body: unknown): Json[] {
  return isObject(body) && Array.isArray(body.data) ? body.data.filter(isObject) : [];
}

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

/** Ollama `POST /api/show`: the trained window in `model_info`, the enforced `num_ctx` in `parameters`. */
const ollama: DiscoveryProbe = {
  server: 'ollama',
  endpoint: '/api/show',
  perModel: true,
  request: (model) =>
    model === undefined
      ? undefined
      : {
          path: '/api/show',
          init: {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ model }),
          },
        },
  parse(body, model) {
    if (!isObject(body) || !isObject(body.model_info)) return undefined;
    const info = body.model_info;
    const architecture = info['general.architecture'];
    const trained =
      (typeof architecture === 'string' ? positive(info[`${architecture}.context_length`]) : undefined) ??
      positive(Object.entries(info).find(([key]) => key.endsWith('.context_length'))?.[1]);
    const parameters = typeof body.parameters === 'string' ? body.parameters : '';
    const numCtx = /^num_ctx\s+(\d+)\s*$/m.exec(parameters)?.[1];
    const numPredict = /^num_predict\s+(\d+)\s*$/m.exec(parameters)?.[1];
    const enforced = numCtx === undefined ? OLLAMA_DEFAULT_NUM_CTX : Number(numCtx);
    const contextLength = smallest(positive(enforced), trained);
    const outputCap = numPredict === undefined ? undefined : positive(Number(numPredict));
    return {
      contextLength,
      ...(outputCap ? { outputCap } : {}),
      ...(trained ? { trainedContextLength: trained } : {}),
      ...(model ? { model } : {}),
    };
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
 * LiteLLM proxy `GET /model/info`: `max_input_tokens` and `max_output_tokens` per model group. These
 * are what LiteLLM advertises, not what the backend behind it enforces, so this probe ranks last and
 * a window learned from an overflow error overrides it.
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
      ...(contextLength ? { contextLength } : {}),
      ...(outputCap ? { outputCap } : {}),
      ...(typeof entry.model_name === 'string' ? { model: entry.model_name } : {}),
    };
  },
};

/**
 * The probes in order of trust: a server's own runtime setting (`n_ctx`, `num_ctx`, LM Studio's
 * loaded length) first, then vLLM's `max_model_len`, then what a gateway advertises.
 */
export const DISCOVERY_PROBES: readonly DiscoveryProbe[] = [llamacpp, ollama, lmstudio, vllm, litellm];
