/**
 * @module
 * Headroom for `@anthropic-ai/sdk` (an optional peer dependency): `withHeadroom(client)` returns a
 * client whose `messages.create` and `messages.stream` are fitted to the window and recovered from
 * overflows.
 *
 * @example
 * import Anthropic from '@anthropic-ai/sdk';
 * import { withHeadroom } from 'headroom/anthropic';
 * const client = withHeadroom(new Anthropic(), { onEvent: (event) => console.error(event.type) });
 */
export type { AdapterEvent, HeadroomAdapterOptions } from '../shared/adapter-options.js';
export { type AnthropicHeadroomOptions, withHeadroom } from './with-headroom.js';
