/**
 * @module
 * The longest model id Spillway accepts from a caller. Model ids are short: Hugging Face repo ids
 * are at most 96 characters (`huggingface_hub` `validate_repo_id`), Ollama names
 * `namespace/model:tag` and OpenRouter ids `vendor/model:variant` are shorter still. A client-chosen
 * name is a key of caches and stores, so an unbounded one is a way to fill memory.
 */

/** Model ids longer than this are refused (`model_name_too_long`; the proxy answers 400). */
export const MAX_MODEL_NAME_CHARS = 256;

/**
 * What is wrong with a model id as a key, or `undefined` when nothing is.
 *
 * @example
 * modelNameProblem('x'.repeat(1_000_000)); // 'the model id is 1000000 characters long, over …'
 */
export function modelNameProblem(model: string): string | undefined {
  if (model.length <= MAX_MODEL_NAME_CHARS) return undefined;
  return `the model id is ${model.length} characters long, over the limit of ${MAX_MODEL_NAME_CHARS}; send the id the server lists (GET /v1/models)`;
}
