/**
 * @module
 * The one thing a surface gives the driver: a transport that sends a fitted request and says how it
 * went, as a value. The tool loop's model client, an SDK's `create`, the proxy's upstream request and
 * the AI SDK's model each make one.
 */
import type { FitResult, UsageReport } from '../manager/index.js';
import type { OverflowInfo } from '../overflow/index.js';
import type { ChatRequest, ToolCall } from '../transcript/index.js';

/** Why a reply ended, normalized. `length`: it hit `max_tokens` or the window. */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'context_window' | 'other';

/** How a send failed. */
export type TransportFailure =
  /** The provider answered with an error status, or an error inside a 200 (a stream's error event). */
  | 'rejected'
  /** The stream ended before the reply finished, before the caller saw any of it. */
  | 'stream_interrupted'
  /** The request never got an answer, or any other failure a retry of the same request will not fix. */
  | 'failed'
  /** The caller aborted. */
  | 'aborted';

/** An answered send. */
export interface TransportSuccess<Response> {
  ok: true;
  response: Response;
  /** The usage the provider reported, when the reply carries it now (a stream may report it later). */
  usage?: UsageReport;
  finishReason?: FinishReason;
  /** Tool calls of the reply, for the invalid-arguments retry class. */
  toolCalls?: readonly ToolCall[];
  /** Completion tokens spent on reasoning, when the provider says. */
  reasoningTokens?: number;
}

/** A failed send. */
export interface TransportError {
  ok: false;
  failure: TransportFailure;
  /** What the surface caught or built: rethrown or wrapped by the caller, classified by the driver. */
  error: unknown;
  status?: number;
  /** The error body as the provider sent it, for classification. */
  body?: string;
  /** The classification a transport had to make in flight, by `options.classify` (the driver's own). */
  overflow?: OverflowInfo;
  /**
   * With `stream_interrupted`: the stream went silent past a timeout rather than breaking off. It is
   * not sent again: a server that is stuck keeps the caller waiting as long again on every resend.
   */
  stalled?: boolean;
}

/** A provider's answer, as much of it as a surface has, for the driver to classify. */
export interface ProviderAnswer {
  status?: number;
  /** The error body as the provider sent it. */
  body?: string;
  /** What the surface caught (an SDK's error, a `ProviderError`), when it has no body of its own. */
  error?: unknown;
}

/** What one send came to. */
export type TransportResult<Response> = TransportSuccess<Response> | TransportError;

/**
 * Sends fitted requests for the driver. It never throws for what a provider does: failures come
 * back as {@link TransportError} values; a throw is a bug and passes through.
 *
 * @example
 * const transport: Transport<ModelResponse> = {
 *   async send(request, { signal }) {
 *     try { const response = await client.send(request, { signal }); return { ok: true, response, usage: response.usage }; }
 *     catch (error) { return { ok: false, failure: 'rejected', error }; }
 *   },
 * };
 */
export interface Transport<Response> {
  send(request: ChatRequest, options: TransportSendOptions): Promise<TransportResult<Response>>;
}

/** What the driver tells the transport about an attempt. */
export interface TransportSendOptions {
  signal?: AbortSignal;
  /** 1 for the first attempt of a send, then 2, 3… for retries and the recovered request. */
  attempt: number;
  /** How the request was fitted (estimate, budget, window, turns dropped), for headers and logs. */
  fit: FitResult;
  /**
   * The driver's classification of a provider answer, with the caller's overflow rows and the fit's
   * figures: the one place an answer is classified. A transport that must decide in flight whether an
   * answer is an overflow (the proxy holds an overflow back from its client and relays anything else)
   * asks it, and returns what it said as `overflow`; the driver classifies every other answer itself.
   */
  classify: (answer: ProviderAnswer) => OverflowInfo;
}
