/**
 * @module
 * The zero-cost probe: a one-message chat request whose `max_tokens` exceeds any window, sent to a
 * server known to check `max_tokens` before it generates. vLLM rejects it at once, naming the
 * window it enforces ("max_tokens=1000000000 cannot be greater than max_model_len=210000",
 * `vllm/renderers/params.py`; "This model's maximum context length is 210000 tokens…" before 0.20),
 * and LiteLLM passes that rejection through, wrapped. The answer is read with `classifyOverflow`.
 * As a safety net the probe is a stream cut at its first event, so a server that accepts it after
 * all generates almost nothing.
 */
import { classifyOverflow, isPlausibleWindow } from '../core/index.js';
import type { DiscoverLimitsOptions } from './discover-limits.js';
import type { ProbeOutcome } from './discovery-outcome.js';
import type { DiscoveredLimits } from './discovery-probe.js';
import { serverRoot } from './server-root.js';

/** The probe's `max_tokens`: above every real window, below the largest figure believed (2^30). */
export const PROBE_MAX_TOKENS = 1_000_000_000;

/** How long the probe may take, in milliseconds: a validation error comes back in well under this. */
export const DEFAULT_PROBE_TIMEOUT_MS = 3_000;

/** The most bytes of an error body read (an overflow message is a few hundred). */
const MAX_ERROR_BYTES = 65_536;

/**
 * Gateway backends known to reject an over-long `max_tokens` before generating, as LiteLLM names
 * them (`litellm_provider`). A vLLM asked directly is not probed: its `/v1/models` reports the very
 * `max_model_len` its check uses.
 */
export const VALIDATING_BACKENDS: readonly string[] = ['hosted_vllm'];

export type { ProbeOutcome } from './discovery-outcome.js';

/** Options of {@link probeLimits}. */
export interface ProbeLimitsOptions
  extends Pick<DiscoverLimitsOptions, 'headers' | 'fetch' | 'signal' | 'timeoutMs'> {
  /** The server's base URL (`http://litellm:4000/v1`); the probe goes to its `/v1/chat/completions`. */
  baseUrl: string;
  model: string;
}

/** Whether discovery identified a server worth probing: a gateway in front of a validating backend. */
export function shouldProbe(found: DiscoveredLimits | undefined): boolean {
  return (
    found?.claimed === true && found.backend !== undefined && VALIDATING_BACKENDS.includes(found.backend)
  );
}

/**
 * Sends the probe and reads the answer. Never throws: a server that cannot be asked is `failed`.
 *
 * @example
 * const probe = await probeLimits({ baseUrl: 'http://litellm:4000/v1', model: 'glm5.2' });
 * // { result: 'stated', contextLength: 210000, status: 400, pattern: 'vllm-max-tokens-above-max-model-len' }
 */
export async function probeLimits({
  baseUrl,
  model,
  headers = {},
  fetch: fetchImpl = globalThis.fetch,
  signal,
  timeoutMs = DEFAULT_PROBE_TIMEOUT_MS,
}: ProbeLimitsOptions): Promise<ProbeOutcome> {
  const controller = new AbortController();
  const deadline = AbortSignal.timeout(timeoutMs);
  const stop = AbortSignal.any([controller.signal, deadline, ...(signal ? [signal] : [])]);
  try {
    const response = await fetchImpl(`${serverRoot(baseUrl)}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
      body: JSON.stringify({
        model,
        messages: [{ role: 'user', content: 'Reply with one word.' }],
        max_tokens: PROBE_MAX_TOKENS,
        stream: true,
      }),
      signal: stop,
    });
    if (!response.ok) return readRejection(response.status, await boundedText(response));
    const event = await firstEvent(response);
    return event !== undefined && /"error"\s*:/.test(event)
      ? readRejection(response.status, event)
      : { result: 'accepted', status: response.status };
  } catch (error) {
    const timedOut = deadline.aborted;
    return {
      result: 'failed',
      message: timedOut
        ? `the probe got no answer within ${timeoutMs} ms`
        : `the probe failed: ${(error as Error).message}`,
    };
  } finally {
    controller.abort();
  }
}

/** The limits a rejection states, as `classifyOverflow` reads them. */
function readRejection(status: number, body: string): ProbeOutcome {
  const info = classifyOverflow({ status, body });
  if (info.kind === 'none') return { result: 'rejected', status, pattern: info.pattern };
  // An output limit is a cap; a window figure without one is the window (vLLM states max_model_len).
  const window = info.outputLimit === undefined ? info.window : undefined;
  const contextLength = window !== undefined && isPlausibleWindow(window) ? window : undefined;
  const outputCap =
    info.outputLimit !== undefined && Number.isInteger(info.outputLimit) && info.outputLimit > 0
      ? info.outputLimit
      : undefined;
  if (contextLength === undefined && outputCap === undefined)
    return { result: 'rejected', status, pattern: info.pattern };
  return {
    result: 'stated',
    status,
    pattern: info.pattern,
    ...(contextLength === undefined ? {} : { contextLength }),
    ...(outputCap === undefined ? {} : { outputCap }),
  };
}

/**
 * A body as text, read until `enough` says so or {@link MAX_ERROR_BYTES} have come; the rest is
 * never read (a stream the server started is cancelled there).
 */
async function readUntil(response: Response, enough: (text: string) => boolean): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (text.length < MAX_ERROR_BYTES && !enough(text)) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    return text.slice(0, MAX_ERROR_BYTES);
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** At most {@link MAX_ERROR_BYTES} of a body. */
function boundedText(response: Response): Promise<string> {
  return readUntil(response, () => false);
}

/** The data of the first server-sent event of a stream; the stream is cancelled right after. */
async function firstEvent(response: Response): Promise<string | undefined> {
  const text = await readUntil(response, (read) => /\r?\n\r?\n/.test(read));
  if (text === '') return undefined;
  const event = text.split(/\r?\n\r?\n/)[0] ?? '';
  return /^data:[ \t]?(.*)$/m.exec(event)?.[1] ?? event;
}
