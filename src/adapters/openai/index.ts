/**
 * @module
 * Spillway for the `openai` SDK (an optional peer dependency, v6): `withSpillway(client)` returns a
 * client whose `chat.completions.create` is fitted to the window and recovered from overflows.
 *
 * @example
 * import OpenAI from 'openai';
 * import { withSpillway } from 'spillway/openai';
 * const client = withSpillway(new OpenAI({ baseURL: 'http://127.0.0.1:8000/v1' }), { contextLength: 32_768 });
 */
export type { AdapterEvent, SpillwayAdapterOptions } from '../shared/adapter-options.js';
export { type OpenAISpillwayOptions, withSpillway } from './with-spillway.js';
