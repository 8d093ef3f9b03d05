/**
 * @module
 * Live discovery: asks a running inference server which window it enforces.
 */
import { SpillwayError } from '../core/index.js';
import { DiscoveryCache, defaultDiscoveryCache } from './discovery-cache.js';
import { DISCOVERY_PROBES, type DiscoveredLimits, type DiscoveryProbe } from './discovery-probes.js';
import { modelNameProblem } from './model-name.js';

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
 * (`max_input_tokens`, `max_output_tokens`). The endpoints that answer for every model are asked
 * once per server and cache lifetime, all at once; Ollama's `/api/show` is asked per model, and only
 * for a model the server's own `/v1/models` lists (or when it lists nothing), so a client naming
 * ever new models costs no probes. Discovery takes at most `timeoutMs` per round; the most trusted
 * answer wins. An unreachable, slow or unknown server gives `undefined`, never an error. Results,
 * misses included, are cached per base URL and model.
 *
 * @example
 * const found = await discoverLimits({ baseUrl: 'http://localhost:11434/v1', model: 'qwen2.5:7b' });
 * // { server: 'ollama', endpoint: '/api/show', contextLength: 4096, trainedContextLength: 32768, … }
 */
export function discoverLimits(options: DiscoverLimitsOptions): Promise<DiscoveredLimits | undefined> {
  const root = serverRoot(options.baseUrl);
  if (HOSTED_API_HOSTS.includes(new URL(root).hostname)) return Promise.resolve(undefined);
  // A name no server lists is not worth a probe, nor a cache entry.
  if (options.model !== undefined && modelNameProblem(options.model) !== undefined)
    return Promise.resolve(undefined);
  const cache = options.cache === undefined ? defaultDiscoveryCache : options.cache;
  if (!(cache instanceof DiscoveryCache)) return discoverModel(root, options, askServer(root, options));
  const result = cache.get(root, options.model, () =>
    discoverModel(
      root,
      options,
      cache.server(root, () => askServer(root, options)),
    ),
  );
  return result.then((found) => {
    if (options.signal?.aborted) cache.forget(root, options.model);
    return found;
  });
}

/** What each model-independent probe's endpoint answered (its JSON body), by endpoint. */
type ServerAnswers = ReadonlyMap<string, unknown>;

/** One probe's request; the JSON body of a 2xx answer, else `undefined`. */
async function ask(
  root: string,
  probe: DiscoveryProbe,
  model: string | undefined,
  { headers = {}, fetch: fetchImpl = globalThis.fetch }: DiscoverLimitsOptions,
  signal: AbortSignal,
): Promise<unknown> {
  const request = probe.request(model);
  if (!request) return undefined;
  try {
    const response = await fetchImpl(`${root}${request.path}`, {
      ...request.init,
      headers: { accept: 'application/json', ...headers, ...(request.init?.headers as object) },
      signal,
    });
    if (!response.ok) {
      await response.body?.cancel();
      return undefined;
    }
    return JSON.parse(await response.text()) as unknown;
  } catch {
    // Refused, timed out, aborted, not JSON: this server is not that kind of server.
    return undefined;
  }
}

/**
 * Asks every model-independent endpoint at once under the deadline. Shared by every lookup of the
 * server, so it runs on its own deadline, never on one caller's abort signal.
 */
async function askServer(root: string, options: DiscoverLimitsOptions): Promise<ServerAnswers> {
  const signal = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_DISCOVERY_TIMEOUT_MS);
  const probes = DISCOVERY_PROBES.filter((probe) => probe.perModel !== true);
  const bodies = await Promise.all(probes.map((probe) => ask(root, probe, undefined, options, signal)));
  return new Map(probes.map((probe, index) => [probe.endpoint, bodies[index]]));
}

/** Whether a model is worth a per-model probe: the server's `/v1/models` lists it, or lists nothing. */
function listed(answers: ServerAnswers, model: string): boolean {
  const body = answers.get('/v1/models') as { data?: unknown } | undefined;
  if (!Array.isArray(body?.data)) return true;
  const wanted = model.toLowerCase();
  return body.data.some(
    (entry) => typeof entry?.id === 'string' && (entry.id === model || entry.id.toLowerCase() === wanted),
  );
}

/** The limits for one model, from the server's answers and, when it is listed, a per-model probe. */
async function discoverModel(
  root: string,
  options: DiscoverLimitsOptions,
  server: Promise<ServerAnswers>,
): Promise<DiscoveredLimits | undefined> {
  const { model } = options;
  const answers = await server;
  for (const probe of DISCOVERY_PROBES) {
    let body: unknown;
    if (probe.perModel !== true) body = answers.get(probe.endpoint);
    else if (model !== undefined && listed(answers, model)) {
      const deadline = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_DISCOVERY_TIMEOUT_MS);
      const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
      body = await ask(root, probe, model, options, signal);
    }
    if (body === undefined) continue;
    const found = probe.parse(body, model);
    if (found && (found.contextLength !== undefined || found.outputCap !== undefined))
      return { server: probe.server, endpoint: probe.endpoint, ...found };
  }
  return undefined;
}
