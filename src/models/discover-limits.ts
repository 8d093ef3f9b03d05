/**
 * @module
 * Live discovery: asks a running inference server which window it enforces.
 */
import { DiscoveryCache, defaultDiscoveryCache } from './discovery-cache.js';
import type { DiscoveryError, DiscoveryOutcome } from './discovery-outcome.js';
import type { DiscoveredLimits, DiscoveryProbe, ServerAnswers } from './discovery-probe.js';
import { DISCOVERY_PROBES } from './discovery-probes.js';
import { modelNameProblem } from './model-name.js';
import { sameOllamaModel } from './ollama-probes.js';
import { serverRoot } from './server-root.js';

export type { DiscoveryError, DiscoveryOutcome } from './discovery-outcome.js';
export { serverRoot } from './server-root.js';

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

/**
 * Asks the server at `baseUrl` which limits it enforces: llama.cpp `/props` (`n_ctx`), Ollama
 * `/api/ps` (the loaded runner's context length) and `/api/show` (`num_ctx`, the trained length),
 * LM Studio `/api/v0/models` (loaded context length), vLLM `/v1/models` (`max_model_len`), TGI
 * `/info` (`max_total_tokens`) and LiteLLM `/model/info` (what the gateway claims). The endpoints
 * that answer for every model are asked once per server and cache lifetime, all at once; Ollama's
 * `/api/show` is asked per model, and only for a model the server's own `/v1/models` lists (or when
 * it lists nothing), so a client naming ever new models costs no probes. Discovery takes at most
 * `timeoutMs` per round; the most trusted answer wins. A server that cannot be reached at all is
 * reported in `error` (`unreachable`, `timeout`), never thrown; one that answers but is not a kind
 * Spillway knows gives neither. Results, misses included, are cached per base URL and model.
 *
 * @example
 * const { found, error } = await discoverServer({ baseUrl: 'http://localhost:11434/v1', model: 'qwen2.5:7b' });
 * // found: { server: 'ollama', endpoint: '/api/ps', contextLength: 4096, trainedContextLength: 32768, … }
 */
export function discoverServer(options: DiscoverLimitsOptions): Promise<DiscoveryOutcome> {
  const root = serverRoot(options.baseUrl);
  if (HOSTED_API_HOSTS.includes(new URL(root).hostname)) return Promise.resolve({});
  // A name no server lists is not worth a probe, nor a cache entry.
  if (options.model !== undefined && modelNameProblem(options.model) !== undefined)
    return Promise.resolve({});
  const cache = options.cache === undefined ? defaultDiscoveryCache : options.cache;
  if (!(cache instanceof DiscoveryCache)) return discoverModel(root, options, askServer(root, options));
  const result = cache.get(root, options.model, () =>
    discoverModel(
      root,
      options,
      cache.server(root, () => askServer(root, options)),
    ),
  );
  return result.then((outcome) => {
    if (options.signal?.aborted) cache.forget(root, options.model);
    return outcome;
  });
}

/**
 * The limits the server at `baseUrl` reports for a model, or `undefined` when it reports none or
 * cannot be reached ({@link discoverServer} says which).
 *
 * @example
 * const found = await discoverLimits({ baseUrl: 'http://localhost:11434/v1', model: 'qwen2.5:7b' });
 */
export async function discoverLimits(options: DiscoverLimitsOptions): Promise<DiscoveredLimits | undefined> {
  return (await discoverServer(options)).found;
}

/** One probe's answer: a 2xx JSON body, another HTTP answer, or no answer at all. */
type Answer = { kind: 'body'; body: unknown } | { kind: 'answered' } | { kind: 'failed'; cause: unknown };

/** What the model-independent endpoints answered, and why none could be reached, if so. */
interface ServerRun {
  answers: ServerAnswers;
  error?: DiscoveryError;
}

/** One probe's request. */
async function ask(
  root: string,
  probe: DiscoveryProbe,
  model: string | undefined,
  { headers = {}, fetch: fetchImpl = globalThis.fetch }: DiscoverLimitsOptions,
  signal: AbortSignal,
): Promise<Answer> {
  const request = probe.request(model);
  if (!request) return { kind: 'answered' };
  let response: Response;
  try {
    response = await fetchImpl(`${root}${request.path}`, {
      ...request.init,
      headers: { accept: 'application/json', ...headers, ...(request.init?.headers as object) },
      signal,
    });
  } catch (cause) {
    return { kind: 'failed', cause };
  }
  try {
    if (!response.ok) {
      await response.body?.cancel();
      return { kind: 'answered' };
    }
    return { kind: 'body', body: JSON.parse(await response.text()) as unknown };
  } catch {
    // Not JSON, or the body broke off: this server is not that kind of server.
    return { kind: 'answered' };
  }
}

/** Why no probe reached the server, in words that say what to do. */
function unreachable(root: string, causes: unknown[], timeoutMs: number): DiscoveryError {
  const timedOut = causes.every(
    (cause) => cause instanceof Error && (cause.name === 'TimeoutError' || cause.name === 'AbortError'),
  );
  if (timedOut)
    return {
      code: 'timeout',
      baseUrl: root,
      message: `no answer from ${root} within ${timeoutMs} ms; check that the server runs there, or raise the timeout`,
    };
  const first = causes[0] as (Error & { cause?: { code?: string; message?: string } }) | undefined;
  const reason = first?.cause?.code ?? first?.cause?.message ?? first?.message ?? 'no connection';
  // fetch refuses the ports the Fetch standard blocks (9, 25, 6000…) before connecting.
  const detail =
    reason === 'bad port' ? `port ${new URL(root).port} is one fetch refuses to connect to` : reason;
  return {
    code: 'unreachable',
    baseUrl: root,
    message: `cannot reach ${root} (${detail}); check the base URL and that the server runs`,
  };
}

/**
 * Asks every model-independent endpoint at once under the deadline. Shared by every lookup of the
 * server, so it runs on its own deadline, never on one caller's abort signal.
 */
async function askServer(root: string, options: DiscoverLimitsOptions): Promise<ServerRun> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_DISCOVERY_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  const probes = DISCOVERY_PROBES.filter((probe) => probe.perModel !== true);
  const results = await Promise.all(probes.map((probe) => ask(root, probe, undefined, options, signal)));
  const answers = new Map(
    probes.map((probe, index) => {
      const result = results[index];
      return [probe.endpoint, result?.kind === 'body' ? result.body : undefined];
    }),
  );
  const causes = results.flatMap((result) => (result.kind === 'failed' ? [result.cause] : []));
  if (causes.length < results.length) return { answers };
  return { answers, error: unreachable(root, causes, timeoutMs) };
}

/** Whether a model is worth a per-model probe: the server's `/v1/models` lists it, or lists nothing. */
function listed(answers: ServerAnswers, model: string): boolean {
  const body = answers.get('/v1/models') as { data?: unknown } | undefined;
  if (!Array.isArray(body?.data)) return true;
  const wanted = model.toLowerCase();
  return body.data.some(
    (entry) =>
      typeof entry?.id === 'string' &&
      (entry.id === model || entry.id.toLowerCase() === wanted || sameOllamaModel(entry.id, model)),
  );
}

/** The limits for one model, from the server's answers and, when it is listed, a per-model probe. */
async function discoverModel(
  root: string,
  options: DiscoverLimitsOptions,
  server: Promise<ServerRun>,
): Promise<DiscoveryOutcome> {
  const { model } = options;
  const { answers, error } = await server;
  if (error) return { error };
  for (const probe of DISCOVERY_PROBES) {
    let body: unknown;
    if (probe.perModel !== true) body = answers.get(probe.endpoint);
    else if (model !== undefined && listed(answers, model)) {
      const deadline = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_DISCOVERY_TIMEOUT_MS);
      const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
      const answer = await ask(root, probe, model, options, signal);
      body = answer.kind === 'body' ? answer.body : undefined;
    }
    if (body === undefined) continue;
    const found = probe.parse(body, model, answers);
    if (found && (found.contextLength !== undefined || found.outputCap !== undefined))
      return { found: { server: probe.server, endpoint: probe.endpoint, ...found } };
  }
  return {};
}
