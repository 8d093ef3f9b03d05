/**
 * @module
 * A model client as the driver's transport: a reply with its usage and tool calls, or the failure
 * as a value, with the client's stream events passed on.
 */
import { contentText, type Summarizer, type Transport } from '../core/index.js';
import { type ModelClient, type ModelResponse, ProviderError, type StreamEvent } from '../providers/index.js';

/**
 * Sends through `client`. A `ProviderError` becomes a failure value: `stream_interrupted` when the
 * stream broke off, `aborted`, `rejected` for an error status or error event (the driver classifies
 * it), `failed` for anything else a retry of the same request would not fix.
 *
 * @example
 * const result = await driver.send({ request, transport: clientTransport({ client, stream: true }) });
 */
export function clientTransport({
  client,
  stream = false,
  onStream,
}: {
  client: ModelClient;
  stream?: boolean;
  onStream?: (event: StreamEvent) => void;
}): Transport<ModelResponse> {
  return {
    async send(request, { signal, classify }) {
      try {
        const response = await client.send(request, {
          ...(signal ? { signal } : {}),
          classify,
          stream,
          ...(onStream ? { onEvent: onStream } : {}),
        });
        return {
          ok: true,
          response,
          ...(response.usage
            ? {
                usage: {
                  promptTokens: response.usage.promptTokens,
                  completionTokens: response.usage.completionTokens,
                },
              }
            : {}),
          finishReason: response.finishReason,
          ...(response.message.toolCalls ? { toolCalls: response.message.toolCalls } : {}),
          ...(response.usage?.reasoningTokens === undefined
            ? {}
            : { reasoningTokens: response.usage.reasoningTokens }),
        };
      } catch (error) {
        if (!ProviderError.isInstance(error)) throw error;
        if (error.failure === 'aborted' || signal?.aborted) return { ok: false, failure: 'aborted', error };
        if (error.failure === 'stream_interrupted')
          return { ok: false, failure: 'stream_interrupted', error };
        if (error.failure === 'stream_timeout')
          return { ok: false, failure: 'stream_interrupted', stalled: true, error };
        if (error.failure === 'http' || error.failure === 'stream_error')
          return {
            ok: false,
            failure: 'rejected',
            error,
            ...(error.status === undefined ? {} : { status: error.status }),
            ...(error.body === undefined ? {} : { body: error.body }),
          };
        return { ok: false, failure: 'failed', error };
      }
    },
  };
}

/** A summarizer that asks `client` (with `model`) for a summary, without tools. */
export function clientSummarizer(client: ModelClient, model?: string): Summarizer {
  return async (request, { signal }) => {
    const summaryRequest = { ...request, tools: [] };
    if (summaryRequest.model === undefined && model !== undefined) summaryRequest.model = model;
    const response = await client.send(summaryRequest, signal ? { signal } : {});
    return {
      text: contentText(response.message.content),
      ...(response.usage
        ? {
            usage: {
              promptTokens: response.usage.promptTokens,
              completionTokens: response.usage.completionTokens,
            },
          }
        : {}),
    };
  };
}
