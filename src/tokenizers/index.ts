/**
 * @module
 * Exact token counters, as an alternative to Headroom's estimator. `headroom/gpt-tokenizer` loads
 * gpt-tokenizer's vocabularies; importing the root package never does.
 */
export { chunkText } from './chunk-text.js';
export { createGptTokenizerCounter, type GptEncoding } from './gpt-tokenizer-counter.js';
