import type { ChatTemplateCosts } from './overheads.js';

/**
 * Counts the tokens of one text segment. Spillway's own estimator implements it without a tokenizer;
 * an exact counter (`exactCounterFor(model)` from `spillway/tokenizers`) can replace it.
 */
export interface TokenCounter {
  /** A stable name, used to keep estimates of different counters apart in caches. */
  readonly name: string;
  /** Tokens of `text` when tokenized on its own. */
  count(text: string): number;
  /**
   * What the template of the model this counter counts for adds around content. A request counted
   * with this counter is counted with these costs; without them, with the estimator's upper figures,
   * which stay above every template measured (right for an estimate, 9–13% high for a tokenizer
   * whose provider renders tools as OpenAI documents).
   */
  readonly template?: ChatTemplateCosts;
}
