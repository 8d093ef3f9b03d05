/**
 * @module
 * `spillway/tokenizers`: the model's own tokenizer where its package is installed (gpt-tokenizer for
 * OpenAI models; optional packages for Qwen, DeepSeek, Gemma, Llama, Mistral, legacy Claude), to
 * count a request exactly. A tokenizer chosen by model id is a guess until its counts agree with the
 * provider's: pass it to the driver as `tokenizer`, which checks it against the provider's reports.
 *
 * @example
 * import { exactCounterFor } from 'spillway/tokenizers';
 * const counter = await exactCounterFor('gpt-4o');
 */
export {
  createExactCounter,
  createGptTokenizerCounter,
  type ExactTokenCounter,
  exactCounterFor,
  exactCounterInfo,
  exactRequestCounter,
  loadedExactCounterFor,
} from './index.js';
