/**
 * @module
 * `spillwayMiddleware`: the AI SDK language-model middleware that keeps every call inside the
 * model's window and recovers the ones a provider rejects anyway.
 */
import type { LanguageModelMiddleware } from 'ai';
import { type ChatRequest, contentText, type Summarizer } from '../../core/index.js';
import type { SpillwayAdapterOptions } from '../shared/adapter-options.js';
import { AdapterSession, type FittedCall } from '../shared/adapter-session.js';
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
  const session = new AdapterSession(options);
  const calls = new WeakMap<LanguageModelCallOptions, FittedCall>();
  const observe = (call: FittedCall, usage: GenerateResult['usage'] | undefined) => {
    const promptTokens = usage?.inputTokens.total;
    if (promptTokens === undefined) return;
    const completionTokens = usage?.outputTokens.total;
    session.observe(call, { promptTokens, ...(completionTokens === undefined ? {} : { completionTokens }) });
  };
  return {
    specificationVersion: 'v3',
    async transformParams({ params, model }) {
      const provider = providerOf(model.provider);
      const original = fromAISDKPrompt({
        prompt: params.prompt,
        ...(params.tools ? { tools: params.tools } : {}),
        ...(params.maxOutputTokens === undefined ? {} : { maxOutputTokens: params.maxOutputTokens }),
        model: model.modelId,
        format: provider === 'anthropic' ? 'anthropic' : 'openai',
      });
      const call = await session.fit(original, { provider });
      const fitted = paramsFor(params, call.fit.request);
      calls.set(fitted, call);
      return fitted;
    },
    async wrapGenerate({ doGenerate, params, model }) {
      const call = calls.get(params);
      if (!call) return doGenerate();
      const result = await session.send({
        call,
        attempt: () => doGenerate(),
        retry: (request) => model.doGenerate(paramsFor(params, request)),
        summarize: summarizer(model, params),
        ...(params.abortSignal ? { signal: params.abortSignal } : {}),
      });
      observe(call, result.usage);
      return result;
    },
    async wrapStream({ doStream, params, model }) {
      const call = calls.get(params);
      if (!call) return doStream();
      const result = await session.send({
        call,
        attempt: () => doStream(),
        retry: (request) => model.doStream(paramsFor(params, request)),
        summarize: summarizer(model, params),
        ...(params.abortSignal ? { signal: params.abortSignal } : {}),
      });
      const watch = new TransformStream<StreamPart, StreamPart>({
        transform(part, controller) {
          if (part.type === 'finish') observe(call, part.usage);
          controller.enqueue(part);
        },
      });
      return { ...result, stream: result.stream.pipeThrough(watch) };
    },
  };
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
