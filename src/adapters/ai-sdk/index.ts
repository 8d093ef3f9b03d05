/**
 * @module
 * Spillway for the Vercel AI SDK (`ai` 6, an optional peer dependency): `spillwayMiddleware()` for
 * `wrapLanguageModel`, and the converters between AI SDK prompts and Spillway's transcript.
 *
 * @example
 * import { wrapLanguageModel } from 'ai';
 * import { spillwayMiddleware } from 'spillway/ai-sdk';
 * const model = wrapLanguageModel({ model: baseModel, middleware: spillwayMiddleware({ contextLength: 32_768 }) });
 */
export type { AdapterEvent, SpillwayAdapterOptions } from '../shared/adapter-options.js';
export type {
  LanguageModelCallOptions,
  LanguageModelMessage,
  LanguageModelPrompt,
  LanguageModelTool,
} from './ai-sdk-types.js';
export { type FromAISDKPromptOptions, fromAISDKPrompt } from './from-ai-sdk-prompt.js';
export { type SpillwayMiddlewareOptions, spillwayMiddleware } from './spillway-middleware.js';
export { toAISDKPrompt } from './to-ai-sdk-prompt.js';
