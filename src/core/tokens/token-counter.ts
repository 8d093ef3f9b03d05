/**
 * Counts the tokens of one text segment. Spillway's own estimator implements it without a tokenizer;
 * an exact counter (`exactCounterFor(model)` from `spillway/tokenizers`) can replace it.
 */
export interface TokenCounter {
  /** A stable name, used to keep estimates of different counters apart in caches. */
  readonly name: string;
  /** Tokens of `text` when tokenized on its own. */
  count(text: string): number;
}
