/**
 * @module
 * Ollama's discovery probes. The window a request gets is the loaded runner's context length
 * (`GET /api/ps`, `context_length`, since Ollama 0.6); before the model is loaded, the `num_ctx`
 * the model's parameters set (`POST /api/show`), else Ollama's default. The window the model was
 * trained on is `model_info["<architecture>.context_length"]` from `/api/show`.
 */
import { isObject, type Json, list, positive, smallest } from './discovery-json.js';
import type { DiscoveryProbe, ServerAnswers } from './discovery-probe.js';

/**
 * Ollama's `num_ctx` when neither the model's parameters nor the request set one: 4,096 (docs/faq.mdx,
 * "How can I specify the context window size?"). Current servers pick 4k, 32k or 256k by free VRAM
 * when `OLLAMA_CONTEXT_LENGTH` is unset (envconfig/config.go); neither choice shows in `/api/show`,
 * so the smallest is assumed until `/api/ps` reports the loaded runner's length.
 */
export const OLLAMA_DEFAULT_NUM_CTX = 4_096;

/** Whether Ollama's name `name` is the model a client asked for (`qwen2.5` is `qwen2.5:latest`). */
export function sameOllamaModel(name: unknown, model: string | undefined): boolean {
  if (typeof name !== 'string' || model === undefined) return false;
  const full = (id: string) => (id.includes(':') ? id : `${id}:latest`).toLowerCase();
  return full(name) === full(model);
}

/** The loaded runner of `model` in an `/api/ps` answer, if it is loaded. */
function loadedEntry(body: unknown, model: string | undefined): Json | undefined {
  return list(body, 'models').find((entry) => sameOllamaModel(entry.name ?? entry.model, model));
}

/** The trained window in `/api/show`'s `model_info`. */
function trainedLength(info: Json): number | undefined {
  const architecture = info['general.architecture'];
  return (
    (typeof architecture === 'string' ? positive(info[`${architecture}.context_length`]) : undefined) ??
    positive(Object.entries(info).find(([key]) => key.endsWith('.context_length'))?.[1])
  );
}

/** `GET /api/ps`: the loaded model's context length (asked once per server, read per model). */
export const ollamaLoaded: DiscoveryProbe = {
  server: 'ollama',
  endpoint: '/api/ps',
  request: () => ({ path: '/api/ps' }),
  parse(body, model) {
    const contextLength = positive(loadedEntry(body, model)?.context_length);
    return contextLength === undefined ? undefined : { contextLength, ...(model ? { model } : {}) };
  },
};

/**
 * `POST /api/show`: the trained window, `num_ctx` and `num_predict` from the parameters; the
 * window in force is the loaded runner's when `/api/ps` lists the model.
 */
export const ollamaShow: DiscoveryProbe = {
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
  parse(body, model, answers?: ServerAnswers) {
    if (!isObject(body) || !isObject(body.model_info)) return undefined;
    const trained = trainedLength(body.model_info);
    const parameters = typeof body.parameters === 'string' ? body.parameters : '';
    const numCtx = /^num_ctx\s+(\d+)\s*$/m.exec(parameters)?.[1];
    const numPredict = /^num_predict\s+(\d+)\s*$/m.exec(parameters)?.[1];
    const loaded = positive(loadedEntry(answers?.get('/api/ps'), model)?.context_length);
    const configured = numCtx === undefined ? OLLAMA_DEFAULT_NUM_CTX : Number(numCtx);
    const contextLength = loaded ?? smallest(positive(configured), trained);
    const outputCap = numPredict === undefined ? undefined : positive(Number(numPredict));
    return {
      ...(loaded === undefined ? {} : { endpoint: '/api/ps' }),
      contextLength,
      ...(outputCap ? { outputCap } : {}),
      ...(trained ? { trainedContextLength: trained } : {}),
      ...(loaded === undefined && numCtx === undefined ? { defaultAssumed: true as const } : {}),
      ...(model ? { model } : {}),
    };
  },
};
