/**
 * @module
 * Live discovery: asks a running inference server which window it enforces.
 */
import { SpillwayError } from '../core/index.js';
import { DiscoveryCache, defaultDiscoveryCache } from './discovery-cache.js';
import { DISCOVERY_PROBES, type DiscoveredLimits } from './discovery-probes.js';

/** How long discovery waits for a server, in milliseconds: every probe runs within this one deadline. */
export const DEFAULT_DISCOVERY_TIMEOUT_MS = 1_500;

/**
 * Hosted APIs whose model lists carry no limits: discovery never probes them (the catalog knows their
 * models), so no request goes to an unexpected path of a paid API.
 */
export const HOSTED_API_HOSTS: readonly string[] = [
  'api.openai.com',
  'api.anthropic.com',
  'generativelanguage.googleapis.com',
  'api.mistral.ai',
  'api.x.ai',
  'api.deepseek.com',
  'api.groq.com',
];

/** Options of {@link discoverLimits}. */
export interface DiscoverLimitsOptions {
  /** The server's base URL, with or without the trailing `/v1` (`http://localhost:11434/v1`). */
  baseUrl: string;
  /** The model to ask about (Ollama's `/api/show` needs it; lists are matched against it). */
  model?: string;
  /** Headers sent with every probe (`authorization` for a LiteLLM proxy or a vLLM `--api-key`). */
  headers?: Record<string, string>;
  /** Deadline for all probes together (default {@link DEFAULT_DISCOVERY_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** Aborts discovery. */
  signal?: AbortSignal;
  /** The `fetch` to use (default the global one). */
  fetch?: typeof fetch;
  /** Where results are kept (default a process-wide cache); `false` to always probe. */
  cache?: DiscoveryCache | false;
}

/** The server root a base URL points at: no trailing slash, no `/v1`. */
export function serverRoot(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (error) {
    throw new SpillwayError(
      'invalid_argument',
      `base URL ${JSON.stringify(baseUrl)} is not a URL; give one like http://localhost:8000/v1`,
      { cause: error },
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new SpillwayError('invalid_argument', `base URL ${baseUrl} must be http: or https:`);
  const path = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  return `${url.origin}${path}`;
}

/**
 * Asks the server at `baseUrl` which limits it enforces: llama.cpp `/props` (`n_ctx`), Ollama
 * `/api/show` (`num_ctx` in force, trained length from `model_info`), LM Studio `/api/v0/models`
 * (loaded context length), vLLM `/v1/models` (`max_model_len`) and LiteLLM `/model/info`
 * (`max_input_tokens`, `max_output_tokens`). All probes run at once under one deadline, so discovery
 * takes at most `timeoutMs`; the most trusted answer wins. An unreachable, slow or unknown server
 * gives `undefined`, never an error. Results are cached per base URL and model.
 *
 * @example
 * const found = await discoverLimits({ baseUrl: 'http://localhost:11434/v1', model: 'qwen2.5:7b' });
 * // { server: 'ollama', endpoint: '/api/show', contextLength: 4096, trainedContextLength: 32768, … }
 */
export function discoverLimits(options: DiscoverLimitsOptions): Promise<DiscoveredLimits | undefined> {
  const root = serverRoot(options.baseUrl);
  if (HOSTED_API_HOSTS.includes(new URL(root).hostname)) return Promise.resolve(undefined);
  const cache = options.cache === undefined ? defaultDiscoveryCache : options.cache;
  if (!(cache instanceof DiscoveryCache)) return probeAll(root, options);
  const result = cache.get(root, options.model, () => probeAll(root, options));
  return result.then((found) => {
    if (options.signal?.aborted) cache.forget(root, options.model);
    return found;
  });
}

async function probeAll(
  root: string,
  {
    model,
    headers = {},
    timeoutMs = DEFAULT_DISCOVERY_TIMEOUT_MS,
    signal,
    fetch: fetchImpl = globalThis.fetch,
  }: DiscoverLimitsOptions,
): Promise<DiscoveredLimits | undefined> {
  const deadline = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([deadline, signal]) : deadline;
  const answers = await Promise.all(
    DISCOVERY_PROBES.map(async (probe) => {
      const request = probe.request(model);
      if (!request) return undefined;
      try {
        const response = await fetchImpl(`${root}${request.path}`, {
          ...request.init,
          headers: { accept: 'application/json', ...headers, ...(request.init?.headers as object) },
          signal: combined,
        });
        if (!response.ok) {
          await response.body?.cancel();
          return undefined;
        }
        const body: unknown = JSON.parse(await response.text());
        const found = probe.parse(body, model);
        return found ? { server: probe.server, endpoint: probe.endpoint, ...found } : undefined;
      } catch {
        // Refused, timed out, aborted, not JSON: this server is not that kind of server.
        return undefined;
      }
    }),
  );
  return answers.find(
    (answer): answer is DiscoveredLimits =>
      answer !== undefined && (answer.contextLength !== undefined || answer.outputCap !== undefined),
  );
}
