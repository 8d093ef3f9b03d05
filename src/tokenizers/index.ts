/**
 * @module
 * Exact token counters, for when a decision is close enough that an estimate will not do:
 * gpt-tokenizer for OpenAI models (a dependency), and optional packages for open models (Qwen 2–3,
 * DeepSeek V3/R1, Gemma 3, Llama 2 and 3, Mistral v0.1, the legacy Claude vocabulary), each loaded
 * with `import()` only when a model of its family asks for it. A missing package resolves
 * `undefined`: the estimator counts instead. Pair a counter with the model's template costs
 * (`openAIChatTemplate()`, `CHATML_TEMPLATE`) in an `EstimateCache` to count whole requests.
 *
 * @example
 * import { exactCounterFor, exactRequestCounter } from 'spillway/tokenizers';
 * const counter = await exactCounterFor('gpt-4o'); // gpt-tokenizer, o200k
 * const requests = await exactRequestCounter('gpt-4o');
 * requests?.count(request); // prompt tokens as OpenAI counts them
 */
export { splitForTokenizer, TOKENIZER_CHUNK_BYTES } from '../core/index.js';
export {
  createExactCounter,
  type ExactFamily,
  type ExactTokenCounter,
  templateCostsFor,
} from './exact-counter.js';
export {
  type ExactCounterForOptions,
  type ExactCounterInfo,
  exactCounterFor,
  exactCounterInfo,
  loadedExactCounterFor,
  resetExactCounters,
} from './exact-counter-for.js';
export { EXACT_FAMILIES, type ExactFamilyEntry, type ImportPackage } from './exact-families.js';
export { type ExactRequestCounter, exactRequestCounter } from './exact-request-counter.js';
export { createGptTokenizerCounter, type GptEncoding } from './gpt-tokenizer-counter.js';
