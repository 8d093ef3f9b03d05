/**
 * @module
 * Which counting endpoint a server has, from what it is: the hosted APIs by host, local servers by the
 * discovery probes (llama.cpp `/props`, vLLM `/v1/models`) plus TGI's `GET /info` and SGLang's
 * `GET /get_model_info`, all under one deadline.
 */
import type { CountEndpointKind } from './count-request-bodies.js';
import { DEFAULT_DISCOVERY_TIMEOUT_MS, discoverLimits, serverRoot } from './discover-limits.js';
import type { DiscoveryCache } from './discovery-cache.js';

/** Hosted APIs and their counting endpoint. */
const HOSTED: Readonly<Record<string, CountEndpointKind>> = {
  'api.anthropic.com': 'anthropic',
  'api.openai.com': 'openai',
  'generativelanguage.googleapis.com': 'gemini',
};

/** Options of {@link detectCountEndpoint}. */
export interface DetectCountEndpointOptions {
  baseUrl: string;
  model?: string;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  /** Deadline for every probe together (default the discovery deadline, 1.5 s). */
  timeoutMs?: number;
  /** The discovery cache to share (default the process-wide one). */
  cache?: DiscoveryCache | false;
}

async function getJson(
  fetchImpl: typeof fetch,
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<Record<string, unknown> | undefined> {
  try {
    const response = await fetchImpl(url, { headers: { accept: 'application/json', ...headers }, signal });
    if (!response.ok) {
      await response.body?.cancel();
      return undefined;
    }
    const body: unknown = JSON.parse(await response.text());
    return typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The counting endpoint of the server at `baseUrl`, or `undefined` when it has none Spillway knows
 * (Ollama, LM Studio, a LiteLLM proxy, an unreachable server). Never throws for what a server does.
 *
 * @example
 * const kind = await detectCountEndpoint({ baseUrl: 'http://localhost:8000/v1' }); // 'vllm'
 * if (kind) counter = createServerCounter({ baseUrl, kind });
 */
export async function detectCountEndpoint(
  options: DetectCountEndpointOptions,
): Promise<CountEndpointKind | undefined> {
  const root = serverRoot(options.baseUrl);
  const hosted = HOSTED[new URL(root).hostname];
  if (hosted) return hosted;
  const { headers = {}, timeoutMs = DEFAULT_DISCOVERY_TIMEOUT_MS } = options;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const signal = AbortSignal.timeout(timeoutMs);
  const [discovered, tgiInfo, sglangInfo] = await Promise.all([
    discoverLimits({
      baseUrl: root,
      ...(options.model === undefined ? {} : { model: options.model }),
      headers,
      timeoutMs,
      fetch: fetchImpl,
      ...(options.cache === undefined ? {} : { cache: options.cache }),
    }).catch(() => undefined),
    // TGI `GET /info` (router/src/server.rs, `get_model_info`): `model_id` with `max_total_tokens`.
    getJson(fetchImpl, `${root}/info`, headers, signal),
    // SGLang `GET /get_model_info` (http_server.py): `model_path`.
    getJson(fetchImpl, `${root}/get_model_info`, headers, signal),
  ]);
  if (discovered?.server === 'llamacpp') return 'llamacpp';
  if (tgiInfo && typeof tgiInfo.model_id === 'string' && typeof tgiInfo.max_total_tokens === 'number')
    return 'tgi';
  if (sglangInfo && typeof sglangInfo.model_path === 'string') return 'sglang';
  if (discovered?.server === 'vllm') return 'vllm';
  return undefined;
}
