/**
 * @module
 * The counts a proxied request can have besides Spillway's estimate: the model's own tokenizer,
 * where its package is installed (gpt-tokenizer, a dependency, for OpenAI models) and the upstream
 * cannot count for itself, and the upstream's counting endpoint (vLLM's `/tokenize`, llama.cpp's
 * `/apply-template` + `/tokenize`, TGI's `/chat_tokenize`, Anthropic's `count_tokens`, OpenAI's
 * `input_tokens`, Gemini's `countTokens`). For a send, both settle only a request the estimate
 * alone cannot place, and only a self-hosted server discovery already found is asked (a local round
 * trip); the counting routes ask whatever endpoint the upstream has, once it is detected.
 */
import type { MeasureRequest, TokenCounter } from '../core/index.js';
import {
  type CountEndpointKind,
  createServerCounter,
  detectCountEndpoint,
  type ServerCounter,
} from '../models/index.js';
import type { Exchange, ProxyRuntime } from './proxy-runtime.js';
import { credentialHeaders } from './redact-secrets.js';
import type { UpstreamLimits } from './resolve-upstream-limits.js';

/** Servers whose counting endpoint costs nothing but a local round trip. */
const COUNTING_SERVERS = new Set(['vllm', 'llamacpp'] as const);

/**
 * The tokenizer registry, imported on the first request that asks (a proxy that never meets a model
 * with a tokenizer never loads it) and once per process: an `import()` per request went through the
 * module loader's resolution every time.
 */
let registry: Promise<typeof import('../tokenizers/index.js')> | undefined;
const tokenizers = () => {
  registry ??= import('../tokenizers/index.js');
  return registry;
};

/** What the driver counts with, beyond the estimate. */
export interface UpstreamCounters {
  /** The model's own tokenizer, when it is exact for the model. */
  exact?: TokenCounter;
  /** The upstream's counting endpoint, with this request's credentials. */
  measure?: MeasureRequest;
}

/** A counter on the upstream's `kind` of counting endpoint, with this request's credentials. */
function serverCounter(runtime: ProxyRuntime, exchange: Exchange, kind: CountEndpointKind): ServerCounter {
  return createServerCounter({
    baseUrl: runtime.upstreamRoot,
    kind,
    headers: credentialHeaders(exchange.request.headers),
    ...(runtime.fetch ? { fetch: runtime.fetch } : {}),
  });
}

/**
 * The exact counter and the counting endpoint for one request.
 *
 * @example
 * const counters = await upstreamCounters({ runtime, exchange, model: 'gpt-4o', limits });
 * counters.exact?.name; // 'gpt-tokenizer/o200k'
 */
export async function upstreamCounters({
  runtime,
  exchange,
  model,
  limits,
}: {
  runtime: ProxyRuntime;
  exchange: Exchange;
  model: string | undefined;
  limits: UpstreamLimits;
}): Promise<UpstreamCounters> {
  const server = limits.server;
  const counts = server !== undefined && (COUNTING_SERVERS as Set<string>).has(server);
  // A server that counts for itself outranks a local tokenizer, so none is loaded for it: a
  // tokenizer stays in the heap for good (Qwen's takes 66 MB), and every full collection marks it.
  const exact = counts ? undefined : await (await tokenizers()).exactCounterFor(model);
  // Made when first asked: most requests are placed by the estimate alone.
  let counter: ServerCounter | undefined;
  const measure: MeasureRequest = (request, options) => {
    counter ??= serverCounter(runtime, exchange, server as 'vllm' | 'llamacpp');
    return counter.count(request, options);
  };
  return { ...(exact?.exact ? { exact } : {}), ...(counts ? { measure } : {}) };
}

/** Detected counting endpoints, by upstream (the runtime) and model: detection probes once. */
const detected = new WeakMap<ProxyRuntime, Map<string, Promise<CountEndpointKind | undefined>>>();

/**
 * The upstream's counting endpoint as a counter, or `undefined` when it has none Spillway knows
 * (Ollama, LM Studio, a gateway). Detection runs once per upstream and model and shares the
 * proxy's discovery cache, so a server discovery already found costs no new probe.
 *
 * @example
 * const counter = await upstreamCountEndpoint({ runtime, exchange, model: 'qwen' });
 * const counted = await counter?.measure(fit.request); // { ok: true, tokens: 5091, kind: 'vllm', … }
 */
export async function upstreamCountEndpoint({
  runtime,
  exchange,
  model,
}: {
  runtime: ProxyRuntime;
  exchange: Exchange;
  model: string | undefined;
}): Promise<ServerCounter | undefined> {
  let byModel = detected.get(runtime);
  if (!byModel) {
    byModel = new Map();
    detected.set(runtime, byModel);
  }
  let kind = byModel.get(model ?? '');
  if (!kind) {
    kind = detectCountEndpoint({
      baseUrl: runtime.upstreamRoot,
      ...(model === undefined ? {} : { model }),
      headers: credentialHeaders(exchange.request.headers),
      cache: runtime.discovery,
      ...(runtime.fetch ? { fetch: runtime.fetch } : {}),
    }).catch(() => undefined);
    byModel.set(model ?? '', kind);
  }
  const found = await kind;
  return found === undefined ? undefined : serverCounter(runtime, exchange, found);
}
