/**
 * @module
 * Exact token counters, as an alternative to Spillway's estimator. `spillway/gpt-tokenizer` loads
 * gpt-tokenizer's vocabularies; importing the root package never does.
 */
export { chunkText } from './chunk-text.js';
export { createGptTokenizerCounter, type GptEncoding } from './gpt-tokenizer-counter.js';
