/**
 * @module
 * The upstream model as the summarizer of compactions: a summary request goes to the same upstream,
 * with the client's own credentials, as one non-streaming chat request.
 */
import { type ChatRequest, type Summarizer, writeRequest } from '../core/index.js';
import { ProviderError, safeHeaders } from '../providers/index.js';
import { type Exchange, type ProxyRuntime, upstreamJsonPost } from './proxy-runtime.js';
import { readResponseBody, sendUpstream } from './upstream-request.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The text of a reply: OpenAI `choices[0].message.content`, Anthropic `content` text blocks, the
 * Responses API's `output` message items (`output_text` parts), Gemini's `candidates[0]` text parts
 * (thoughts left out).
 */
function replyText(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  if (Array.isArray(body.candidates)) {
    const content = isRecord(body.candidates[0]) ? body.candidates[0].content : undefined;
    const parts = isRecord(content) && Array.isArray(content.parts) ? content.parts : [];
    return parts
      .filter((part) => isRecord(part) && typeof part.text === 'string' && part.thought !== true)
      .map((part) => (part as { text: string }).text)
      .join('');
  }
  const blocks = (value: unknown): string | undefined =>
    Array.isArray(value)
      ? value
          .filter(
            (block) =>
              isRecord(block) &&
              (block.type === 'text' || block.type === 'output_text') &&
              typeof block.text === 'string',
          )
          .map((block) => (block as { text: string }).text)
          .join('')
      : typeof value === 'string'
        ? value
        : undefined;
  if (Array.isArray(body.output))
    return body.output
      .map((item) => (isRecord(item) && item.type === 'message' ? blocks(item.content) : undefined))
      .filter((text): text is string => text !== undefined)
      .join('');
  if (Array.isArray(body.choices)) {
    const message = isRecord(body.choices[0]) ? body.choices[0].message : undefined;
    return isRecord(message) ? blocks(message.content) : undefined;
  }
  return blocks(body.content);
}

function usageOf(body: unknown): { promptTokens: number; completionTokens: number } | undefined {
  if (!isRecord(body)) return undefined;
  const usage = isRecord(body.usage)
    ? body.usage
    : isRecord(body.usageMetadata)
      ? {
          prompt_tokens: body.usageMetadata.promptTokenCount,
          completion_tokens: body.usageMetadata.candidatesTokenCount,
        }
      : undefined;
  if (usage === undefined) return undefined;
  const number = (key: string) => (typeof usage[key] === 'number' ? (usage[key] as number) : undefined);
  const prompt = number('prompt_tokens') ?? number('input_tokens');
  const completion = number('completion_tokens') ?? number('output_tokens');
  return prompt === undefined || completion === undefined
    ? undefined
    : { promptTokens: prompt, completionTokens: completion };
}

/**
 * A {@link Summarizer} that sends each summary request to the upstream's chat endpoint for this
 * exchange. A rejection comes back as a `ProviderError` (status, body, classified overflow), which
 * compaction uses to shrink the summary request.
 *
 * @example
 * const summarize = createUpstreamSummarizer({ runtime, exchange });
 * await recoverFromOverflow({ request, overflow, manager, summarize });
 */
export function createUpstreamSummarizer({
  runtime,
  exchange,
}: {
  runtime: ProxyRuntime;
  exchange: Exchange;
}): Summarizer {
  return async (request: ChatRequest, { signal }) => {
    const wire = writeRequest(request);
    delete wire.stream;
    delete wire.stream_options;
    const body = Buffer.from(JSON.stringify(wire));
    const started = performance.now();
    // Gemini streams by path: the summary asks the same model for one whole answer.
    const path = exchange.path
      .replace(':streamGenerateContent', ':generateContent')
      .replace(/([?&])alt=sse(&|$)/, (_match, before: string, after: string) => (after ? before : ''));
    try {
      const response = await sendUpstream(
        upstreamJsonPost(runtime, { ...exchange, path }, body, signal ?? exchange.signal),
      );
      const text = (await readResponseBody(response)).toString('utf8');
      const status = response.statusCode ?? 502;
      if (status >= 300)
        throw new ProviderError(`the upstream answered the summary request with ${status}`, {
          failure: 'http',
          status,
          headers: safeHeaders(response.headers as Record<string, string>),
          body: text,
        });
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      const summary = replyText(parsed);
      if (summary === undefined)
        throw new ProviderError('the upstream answered the summary request with no text', {
          failure: 'malformed_response',
          status,
        });
      const usage = usageOf(parsed);
      return usage ? { text: summary, usage } : { text: summary };
    } finally {
      exchange.upstreamMs += performance.now() - started;
    }
  };
}
