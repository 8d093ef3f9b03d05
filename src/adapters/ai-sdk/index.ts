/**
 * @module
 * Headroom for the Vercel AI SDK (`ai` 6, an optional peer dependency): `headroomMiddleware()` for
 * `wrapLanguageModel`, and the converters between AI SDK prompts and Headroom's transcript.
 *
 * @example
 * import { wrapLanguageModel } from 'ai';
 * import { headroomMiddleware } from 'headroom/ai-sdk';
 * const model = wrapLanguageModel({ model: baseModel, middleware: headroomMiddleware({ contextLength: 32_768 }) });
 */
export type { AdapterEvent, HeadroomAdapterOptions } from '../shared/adapter-options.js';
export type {
  LanguageModelCallOptions,
  LanguageModelMessage,
  LanguageModelPrompt,
  LanguageModelTool,
} from './ai-sdk-types.js';
export { type FromAISDKPromptOptions, fromAISDKPrompt } from './from-ai-sdk-prompt.js';
export { type HeadroomMiddlewareOptions, headroomMiddleware } from './headroom-middleware.js';
export { toAISDKPrompt } from './to-ai-sdk-prompt.js';
