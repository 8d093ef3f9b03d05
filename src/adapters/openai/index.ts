/**
 * @module
 * Headroom for the `openai` SDK (an optional peer dependency, v6): `withHeadroom(client)` returns a
 * client whose `chat.completions.create` is fitted to the window and recovered from overflows.
 *
 * @example
 * import OpenAI from 'openai';
 * import { withHeadroom } from 'headroom/openai';
 * const client = withHeadroom(new OpenAI({ baseURL: 'http://127.0.0.1:8000/v1' }), { contextLength: 32_768 });
 */
export type { AdapterEvent, HeadroomAdapterOptions } from '../shared/adapter-options.js';
export { type OpenAIHeadroomOptions, withHeadroom } from './with-headroom.js';
