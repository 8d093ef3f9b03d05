/**
 * @module
 * Running an Ollama model with a chosen `num_ctx` through Ollama's OpenAI-compatible endpoint. That
 * endpoint has no way to set it per request: its `ChatCompletionRequest` carries no `options`
 * (openai/openai.go), and the docs say to create a model with `PARAMETER num_ctx` instead
 * (docs/api/openai-compatibility.mdx, "Setting the context size"). So Spillway creates that model
 * once, from the one asked for, with `POST /api/create` (`from` and `parameters`, as `ollama
 * create` does with a Modelfile; the weights are shared, nothing is copied), and chats with it.
 */
import { SpillwayError } from '../core/index.js';
import { serverRoot } from './discover-limits.js';

/** Options of {@link ollamaModelWithNumCtx}. */
export interface OllamaNumCtxOptions {
  /** The Ollama server (`http://localhost:11434/v1`). */
  baseUrl: string;
  /** The model to run (`qwen2.5:7b`). */
  model: string;
  /** The window to run it with. */
  numCtx: number;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  /** Deadline of each request, in milliseconds (default 10,000: creating writes a manifest). */
  timeoutMs?: number;
}

/** What {@link ollamaModelWithNumCtx} did. */
export interface OllamaNumCtxResult {
  /** The model to send requests to. */
  model: string;
  /** Whether it was created now (`false`: it existed with this `num_ctx`). */
  created: boolean;
}

/**
 * The name of `model` run with `numCtx`: its tag gets `-num-ctx-N` (`qwen2.5:7b` →
 * `qwen2.5:7b-num-ctx-32768`, `llama3.1` → `llama3.1:latest-num-ctx-32768`).
 */
export function ollamaNumCtxName(model: string, numCtx: number): string {
  const colon = model.lastIndexOf(':');
  const [name, tag] =
    colon > model.lastIndexOf('/') ? [model.slice(0, colon), model.slice(colon + 1)] : [model, 'latest'];
  return `${name}:${tag}-num-ctx-${numCtx}`;
}

async function post(options: OllamaNumCtxOptions, path: string, body: unknown): Promise<Response> {
  const { baseUrl, headers = {}, fetch: fetchImpl = globalThis.fetch, timeoutMs = 10_000 } = options;
  const url = `${serverRoot(baseUrl)}${path}`;
  try {
    return await fetchImpl(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new SpillwayError(
      'provider_error',
      `cannot reach the Ollama server at ${url} (${(error as Error).message}); check base_url, or remove ollama_num_ctx from the config`,
      { cause: error },
    );
  }
}

/**
 * The model to chat with so that Ollama runs `model` with `numCtx`: created on first use, reused
 * after. Throws `invalid_config` when the server is not Ollama or does not have the model.
 *
 * @example
 * const { model } = await ollamaModelWithNumCtx({ baseUrl: 'http://localhost:11434/v1', model: 'qwen2.5:7b', numCtx: 32_768 });
 * // model: 'qwen2.5:7b-num-ctx-32768'
 */
export async function ollamaModelWithNumCtx(options: OllamaNumCtxOptions): Promise<OllamaNumCtxResult> {
  const { model, numCtx } = options;
  const derived = ollamaNumCtxName(model, numCtx);
  const shown = await post(options, '/api/show', { model: derived });
  if (shown.ok) {
    const parameters = ((await shown.json().catch(() => ({}))) as { parameters?: unknown }).parameters;
    const set = typeof parameters === 'string' ? /^num_ctx\s+(\d+)\s*$/m.exec(parameters)?.[1] : undefined;
    if (set !== undefined && Number(set) === numCtx) return { model: derived, created: false };
  } else await shown.body?.cancel();
  const created = await post(options, '/api/create', {
    model: derived,
    from: model,
    parameters: { num_ctx: numCtx },
    stream: false,
  });
  if (!created.ok) {
    const text = (await created.text().catch(() => '')).slice(0, 300);
    throw new SpillwayError(
      'invalid_config',
      `ollama_num_ctx: the server at ${serverRoot(options.baseUrl)} did not create ${derived} from ${model} (HTTP ${created.status}: ${text}); check that it is an Ollama server that has ${model}, or remove ollama_num_ctx`,
      { data: { status: created.status } },
    );
  }
  await created.body?.cancel();
  return { model: derived, created: true };
}
