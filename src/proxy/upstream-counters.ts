/**
 * @module
 * The counts a proxied request can have besides Spillway's estimate: the model's own tokenizer,
 * where its package is installed (gpt-tokenizer, a dependency, for OpenAI models), and the
 * upstream's counting endpoint, where discovery found a self-hosted server that has one (vLLM's
 * `/tokenize`, llama.cpp's `/apply-template` + `/tokenize`). Both settle only a request the estimate
 * alone cannot place; a request that clearly fits is never counted.
 */
import type { MeasureRequest, TokenCounter } from '../core/index.js';
import { createServerCounter } from '../models/index.js';
import type { Exchange, ProxyRuntime } from './proxy-runtime.js';
import { credentialHeaders } from './redact-secrets.js';
import type { UpstreamLimits } from './resolve-upstream-limits.js';

/** Servers whose counting endpoint costs nothing but a local round trip. */
const COUNTING_SERVERS = new Set(['vllm', 'llamacpp'] as const);

/** What the driver counts with, beyond the estimate. */
export interface UpstreamCounters {
  /** The model's own tokenizer, when it is exact for the model. */
  exact?: TokenCounter;
  /** The upstream's counting endpoint, with this request's credentials. */
  measure?: MeasureRequest;
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
  const { exactCounterFor } = await import('../tokenizers/index.js');
  const exact = await exactCounterFor(model);
  const server = limits.server;
  const counter =
    server !== undefined && (COUNTING_SERVERS as Set<string>).has(server)
      ? createServerCounter({
          baseUrl: runtime.upstreamRoot,
          kind: server as 'vllm' | 'llamacpp',
          headers: credentialHeaders(exchange.request.headers),
          ...(runtime.fetch ? { fetch: runtime.fetch } : {}),
        })
      : undefined;
  return {
    ...(exact?.exact ? { exact } : {}),
    ...(counter ? { measure: (request, options) => counter.count(request, options) } : {}),
  };
}
