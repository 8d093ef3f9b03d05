/**
 * @module
 * A fitted and recovered `create` for the official SDKs (`openai` v6, `@anthropic-ai/sdk`), which
 * share their request machinery: every call returns the SDK's own `APIPromise`.
 */
import type {
  ChatRequest,
  ConversationDriver,
  Summarizer,
  Transport,
  UsageReport,
} from '../../core/index.js';
import type { AdapterSession } from './adapter-session.js';
import { observeSdkStream } from './observe-sdk-stream.js';

/** The part of an SDK `APIPromise` Spillway uses. */
export interface SdkApiPromise<T = unknown> extends PromiseLike<T> {
  asResponse(): Promise<Response>;
}

/**
 * The response of an attempt with its request metadata (`APIResponseProps`: `response`, `options`,
 * `controller`…), which the SDK's parse reads: `_responseProps()` where the SDK offers it
 * (@anthropic-ai/sdk, "for helpers that build one request on another"), else the promise the
 * `APIPromise` holds (openai).
 */
function responseProps(attempt: SdkApiPromise): Promise<Record<string, unknown>> {
  const internal = attempt as unknown as {
    _responseProps?: () => Promise<Record<string, unknown>>;
    responsePromise?: Promise<Record<string, unknown>>;
  };
  if (typeof internal._responseProps === 'function') return internal._responseProps();
  if (internal.responsePromise) return internal.responsePromise;
  return attempt.asResponse().then((response) => ({ response }));
}

/** The SDK's `APIPromise` class: `new APIPromise(client, responsePromise, parseResponse)`. */
export type SdkApiPromiseClass = new (
  client: never,
  responsePromise: Promise<never>,
  parseResponse: (client: unknown, props: unknown) => unknown,
) => SdkApiPromise;

/** A resource method: `create(body, options)`. */
export type SdkCreate = (
  body: Record<string, unknown>,
  options?: { signal?: AbortSignal | null },
) => SdkApiPromise;

/** Inputs of {@link wrapSdkCreate}. */
export interface WrapSdkCreateOptions {
  session: AdapterSession;
  /** The SDK client the method belongs to (the `APIPromise` keeps it). */
  client: unknown;
  APIPromise: SdkApiPromiseClass;
  /** The SDK's own method, bound to its resource. */
  create: SdkCreate;
  /** Wire body → normalized request (`fromOpenAIChat`, `fromAnthropic`). */
  read: (body: Record<string, unknown>) => ChatRequest;
  /** Normalized request → wire body (`toOpenAIChat`, `toAnthropic`). */
  write: (request: ChatRequest) => Record<string, unknown>;
  /** The usage of a non-streaming reply. */
  usageOf: (data: unknown) => UsageReport | undefined;
  /** The usage an event of a streaming reply carries, if any. */
  eventUsageOf: (event: unknown) => UsageReport | undefined;
  /** The text of a non-streaming reply, for compaction summaries. */
  textOf: (data: unknown) => string;
  /** The catalog provider when the adapter options name none. */
  provider?: string;
}

/**
 * Wraps an SDK `create` so that every call goes through the session's driver (fitted, recovered once
 * on an overflow), and its usage is fed back; streaming calls are observed as the caller reads them.
 * The result is a real `APIPromise`: `withResponse()`, `asResponse()` and the SDK's helpers built on
 * it (`chat.completions.parse` / `stream` / `runTools`, `messages.stream`) work as before, and report
 * the attempt that succeeded.
 */
export function wrapSdkCreate(options: WrapSdkCreateOptions): SdkCreate {
  const { session, client, APIPromise, create, read, write, usageOf, eventUsageOf, textOf, provider } =
    options;
  const summarize: Summarizer = async (request, { signal }) => {
    const body: Record<string, unknown> = { ...write(request), stream: false };
    delete body.stream_options;
    const data = await create(body, signal === undefined ? {} : { signal });
    const usage = usageOf(data);
    return {
      text: textOf(data),
      ...(usage
        ? { usage: { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens ?? 0 } }
        : {}),
    };
  };
  return (body, requestOptions) => {
    let succeeded: SdkApiPromise | undefined;
    let driver: ConversationDriver | undefined;
    const signal = requestOptions?.signal ?? undefined;
    const transport: Transport<{ attempt: SdkApiPromise; props: Record<string, unknown> }> = {
      async send(request) {
        const attempt = create(write(request), requestOptions);
        try {
          return { ok: true, response: { attempt, props: await responseProps(attempt) } };
        } catch (error) {
          if (signal?.aborted) return { ok: false, failure: 'aborted', error };
          const status = statusOf(error);
          // The SDK has already retried what it retries; what is left is the provider's answer, for
          // the driver to classify.
          return { ok: false, failure: 'rejected', error, ...(status === undefined ? {} : { status }) };
        }
      },
    };
    const responsePromise = (async () => {
      const sent = await session.send({
        request: read(body),
        ...(provider === undefined ? {} : { provider }),
        transport,
        summarize,
        ...(signal ? { signal } : {}),
      });
      driver = sent.driver;
      succeeded = sent.response.attempt;
      // The attempt's own parse (below) reads the body and ends its trace span, so this promise
      // carries its response and metadata without the span.
      const props = sent.response.props;
      const options = props.options as Record<string, unknown> | undefined;
      return { ...props, ...(options ? { options: { ...options, __span: undefined } } : {}) };
    })();
    const parse = async () => {
      const data: unknown = await (succeeded as SdkApiPromise);
      const used = driver;
      if (used && body.stream === true) {
        observeSdkStream(data, (event) => {
          const usage = eventUsageOf(event);
          if (usage) session.observe(used, usage);
        });
      } else if (used) {
        const usage = usageOf(data);
        if (usage) session.observe(used, usage);
      }
      return data;
    };
    return new APIPromise(client as never, responsePromise as Promise<never>, parse);
  };
}

/** The HTTP status an SDK error carries (`APIError.status`), if any. */
function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const record = error as { status?: unknown; statusCode?: unknown };
  const status = record.status ?? record.statusCode;
  return typeof status === 'number' ? status : undefined;
}
