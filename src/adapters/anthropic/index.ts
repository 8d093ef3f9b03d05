/**
 * @module
 * Spillway for `@anthropic-ai/sdk` (an optional peer dependency): `withSpillway(client)` returns a
 * client whose `messages.create` and `messages.stream` are fitted to the window and recovered from
 * overflows.
 *
 * @example
 * import Anthropic from '@anthropic-ai/sdk';
 * import { withSpillway } from 'spillway/anthropic';
 * const client = withSpillway(new Anthropic(), { onEvent: (event) => console.error(event.type) });
 */
export type { AdapterEvent, SpillwayAdapterOptions } from '../shared/adapter-options.js';
export { type AnthropicSpillwayOptions, withSpillway } from './with-spillway.js';
