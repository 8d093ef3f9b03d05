/**
 * @module
 * `spillwayMiddleware`: the AI SDK language-model middleware that keeps every call inside the
 * model's window and recovers the ones a provider rejects anyway.
 */
import type { LanguageModelMiddleware } from 'ai';
import {
  type ChatRequest,
  contentText,
  type Summarizer,
  type Transport,
  type UsageReport,
} from '../../core/index.js';
import type { SpillwayAdapterOptions } from '../shared/adapter-options.js';
import { AdapterSession } from '../shared/adapter-session.js';
import type {
  GenerateResult,
  LanguageModelCallOptions,
  LanguageModelInstance,
  StreamPart,
} from './ai-sdk-types.js';
import { fromAISDKPrompt } from './from-ai-sdk-prompt.js';
import { toAISDKPrompt } from './to-ai-sdk-prompt.js';

/** Options of {@link spillwayMiddleware}. */
export type SpillwayMiddlewareOptions = SpillwayAdapterOptions;

/**
 * A language-model middleware for the AI SDK (`ai` 6, specification v3).
 *
 * - `transformParams` fits the prompt to the model's window: the AI SDK's messages and parts are
 *   converted to Spillway's transcript (reasoning, files, tool calls and results, tool-approval
 *   responses, `providerOptions`: nothing is dropped), whole turns are pruned oldest first with
 *   every tool call kept beside its result, and `maxOutputTokens` is clamped to the room left.
 * - `wrapGenerate` / `wrapStream` feed the usage the provider reports back for calibration, and on
 *   an overflow (an `APICallError` whose `statusCode` and `responseBody` `classifyOverflow`
 *   recognizes) learn the stated window, recover, and retry once with the wrapped model.
 *
 * Limits come from the model catalog by the model's provider (`openai` of `openai.chat`) and id,
 * overridable with `contextLength` / `outputCap`. Every step of a multi-step tool loop
 * (`generateText` / `streamText` with `stopWhen`) is a call, so each is fitted; the AI SDK keeps the
 * full history, Spillway only bounds what each call sends. One middleware instance serves one run
 * at a time (give concurrent runs a middleware each).
 *
 * @example
 * import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
 * import { openai } from '@ai-sdk/openai';
 * import { spillwayMiddleware } from 'spillway/ai-sdk';
 *
 * const model = wrapLanguageModel({ model: openai('gpt-4o'), middleware: spillwayMiddleware() });
 * const { text } = await generateText({ model, tools, stopWhen: stepCountIs(50), prompt: 'Fix the tests.' });
 */
export function spillwayMiddleware(options: SpillwayMiddlewareOptions = {}): LanguageModelMiddleware {
  const session = new AdapterSession(options, 'ai-sdk');
  const calls = new WeakMap<LanguageModelCallOptions, { request: ChatRequest; provider: string }>();
  const send = async <Result>(
    params: LanguageModelCallOptions,
    model: LanguageModelInstance,
    call: (params: LanguageModelCallOptions) => PromiseLike<Result>,
    usageOf: (result: Result) => UsageReport | undefined,
  ) => {
    const pending = calls.get(params) as { request: ChatRequest; provider: string };
    const signal = params.abortSignal;
    const transport: Transport<Result> = {
      async send(request) {
        try {
          const result = await call(paramsFor(params, request));
          const usage = usageOf(result);
          return { ok: true, response: result, ...(usage ? { usage } : {}) };
        } catch (error) {
          if (signal?.aborted) return { ok: false, failure: 'aborted', error };
          const status = (error as { statusCode?: unknown } | undefined)?.statusCode;
          return { ok: false, failure: 'rejected', error, ...(typeof status === 'number' ? { status } : {}) };
        }
      },
    };
    return session.send({
      request: pending.request,
      provider: pending.provider,
      transport,
      summarize: summarizer(model, params),
      ...(signal ? { signal } : {}),
    });
  };
  return {
    specificationVersion: 'v3',
    async transformParams({ params, model }) {
      const provider = providerOf(model.provider);
      const request = fromAISDKPrompt({
        prompt: params.prompt,
        ...(params.tools ? { tools: params.tools } : {}),
        ...(params.maxOutputTokens === undefined ? {} : { maxOutputTokens: params.maxOutputTokens }),
        model: model.modelId,
        format: provider === 'anthropic' ? 'anthropic' : 'openai',
      });
      // Fitted where it is sent (wrapGenerate / wrapStream), through the driver.
      const next = { ...params };
      calls.set(next, { request, provider });
      return next;
    },
    async wrapGenerate({ doGenerate, params, model }) {
      if (!calls.has(params)) return doGenerate();
      const { response } = await send(
        params,
        model,
        (call) => model.doGenerate(call),
        (result) => usageReport(result.usage),
      );
      return response;
    },
    async wrapStream({ doStream, params, model }) {
      if (!calls.has(params)) return doStream();
      const { driver, response } = await send(
        params,
        model,
        (call) => model.doStream(call),
        () => undefined,
      );
      const watch = new TransformStream<StreamPart, StreamPart>({
        transform(part, controller) {
          if (part.type === 'finish') {
            const usage = usageReport(part.usage);
            if (usage) session.observe(driver, usage);
          }
          controller.enqueue(part);
        },
      });
      return { ...response, stream: response.stream.pipeThrough(watch) };
    },
  };
}

/** The usage the AI SDK reports, as the driver reads it. */
function usageReport(usage: GenerateResult['usage'] | undefined): UsageReport | undefined {
  const promptTokens = usage?.inputTokens.total;
  if (promptTokens === undefined) return undefined;
  const completionTokens = usage?.outputTokens.total;
  return { promptTokens, ...(completionTokens === undefined ? {} : { completionTokens }) };
}

/** The catalog provider of an AI SDK model: `openai` of `openai.chat`, `anthropic` of `anthropic.messages`. */
function providerOf(provider: string): string {
  const name = provider.split('.')[0] ?? provider;
  return name === '' ? provider : name;
}

/** The call with the prompt and reply cap of a fitted (or recovered) request. */
function paramsFor(params: LanguageModelCallOptions, request: ChatRequest): LanguageModelCallOptions {
  const next: LanguageModelCallOptions = { ...params, prompt: toAISDKPrompt(request) };
  if (request.maxTokens === undefined) delete next.maxOutputTokens;
  else next.maxOutputTokens = request.maxTokens;
  return next;
}

/** Compaction summaries go to the wrapped model itself, without tools. */
function summarizer(model: LanguageModelInstance, params: LanguageModelCallOptions): Summarizer {
  return async (request, { signal }) => {
    const result = await model.doGenerate({
      prompt: toAISDKPrompt(request),
      ...(request.maxTokens === undefined ? {} : { maxOutputTokens: request.maxTokens }),
      ...(params.headers ? { headers: params.headers } : {}),
      ...(signal ? { abortSignal: signal } : {}),
    });
    const text = contentText(
      result.content.flatMap((part) =>
        part.type === 'text' ? [{ type: 'text' as const, text: part.text }] : [],
      ),
    );
    const promptTokens = result.usage.inputTokens.total;
    const completionTokens = result.usage.outputTokens.total ?? 0;
    return { text, ...(promptTokens === undefined ? {} : { usage: { promptTokens, completionTokens } }) };
  };
}
