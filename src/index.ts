/**
 * @module
 * Spillway: keeps LLM agent loops inside the model's context window, and gets them out again when
 * they overflow anyway. The root export is the dependency-free core; integrations live on subpaths.
 *
 * @example
 * import { ContextWindowManager, fromOpenAIChat, toOpenAIChat } from 'spillway';
 * const manager = new ContextWindowManager({ contextLength: 128_000, model: 'gpt-4o' });
 * const { request } = manager.fit(fromOpenAIChat(body));
 */
export * from './core/index.js';
