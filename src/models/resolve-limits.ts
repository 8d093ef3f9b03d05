/**
 * @module
 * The one resolution order for a model's limits, each figure reported with where it came from.
 */
import { FALLBACK_CONTEXT_LENGTH, isPlausibleWindow, SpillwayError } from '../core/index.js';
import { type DiscoverLimitsOptions, discoverLimits } from './discover-limits.js';
import type { DiscoveredLimits } from './discovery-probes.js';
import { type CatalogMatch, lookupModel } from './model-catalog.js';
import { modelNameProblem } from './model-name.js';

/** Where a limit came from: `discovery:<endpoint>` names the endpoint that reported it. */
export type LimitSource = 'config' | 'learned' | `discovery:${string}` | 'catalog' | 'fallback';

/** A model's limits as a caller configures them or a store keeps them. */
export interface LimitValues {
  contextLength?: number;
  outputCap?: number;
}

/** Limits learned from providers, by model id: what `SessionStore.learnedLimits()` returns. */
export type LearnedLimits = Readonly<Record<string, LimitValues>>;

/** Options of {@link resolveLimits}. */
export interface ResolveLimitsOptions extends Omit<DiscoverLimitsOptions, 'baseUrl' | 'model'> {
  /** The model id, in any provider's spelling. */
  model: string;
  /** The provider serving it, for the catalog (`openai`, `anthropic`, `openrouter`, `bedrock`…). */
  provider?: string;
  /** A running server to ask (vLLM, llama.cpp, Ollama, LM Studio, LiteLLM). */
  baseUrl?: string;
  /** Explicit limits: they win over everything else. */
  config?: LimitValues;
  /** Limits learned from overflow errors and silent truncations (`store.learnedLimits()`). */
  learned?: LearnedLimits;
}

/** A model's limits in force and where each came from. */
export interface ResolvedLimits {
  model: string;
  contextLength: number;
  /** Absent when nothing states one; the budget then reserves its default share of the window. */
  outputCap?: number;
  source: { contextLength: LimitSource; outputCap: LimitSource };
  /** What the server reported, when discovery ran and found it. */
  discovery?: DiscoveredLimits;
  /** The catalog entry the model matched, if any. */
  catalog?: CatalogMatch;
}

function checkConfig(config: LimitValues | undefined): void {
  for (const key of ['contextLength', 'outputCap'] as const) {
    const value = config?.[key];
    if (value !== undefined && (!Number.isInteger(value) || value <= 0))
      throw new SpillwayError('invalid_config', `config.${key} must be a positive integer, got ${value}`);
  }
}

function learnedFor(learned: LearnedLimits | undefined, model: string): LimitValues {
  if (!learned) return {};
  const lower = model.toLowerCase();
  const entry = learned[model] ?? Object.entries(learned).find(([key]) => key.toLowerCase() === lower)?.[1];
  if (!entry) return {};
  const contextLength =
    entry.contextLength !== undefined && isPlausibleWindow(entry.contextLength)
      ? entry.contextLength
      : undefined;
  const outputCap =
    entry.outputCap !== undefined && Number.isInteger(entry.outputCap) && entry.outputCap > 0
      ? entry.outputCap
      : undefined;
  return { contextLength, outputCap };
}

/**
 * The window and output cap in force for a model, each from the first source that states it:
 * explicit configuration > learned from an overflow error (or a silent truncation) > live discovery
 * of the server at `baseUrl` > the catalog > the conservative 8,192-token fallback (no output cap).
 * Discovery runs only when a figure is still open after configuration and learned limits, and never
 * fails: an unreachable server is skipped.
 *
 * @example
 * const limits = await resolveLimits({ model: 'qwen2.5:7b', baseUrl: 'http://localhost:11434/v1', learned: store.learnedLimits() });
 * // { model: 'qwen2.5:7b', contextLength: 4096, source: { contextLength: 'discovery:/api/show', outputCap: 'fallback' }, … }
 * const manager = new ContextWindowManager({ model: limits.model, contextLength: limits.contextLength, outputCap: limits.outputCap });
 */
export async function resolveLimits({
  model,
  provider,
  baseUrl,
  config,
  learned,
  ...discovery
}: ResolveLimitsOptions): Promise<ResolvedLimits> {
  if (typeof model !== 'string' || model.trim() === '')
    throw new SpillwayError('invalid_argument', 'model must be a non-empty model id, such as gpt-4o');
  const problem = modelNameProblem(model);
  if (problem !== undefined) throw new SpillwayError('invalid_argument', problem);
  checkConfig(config);
  const fromLearned = learnedFor(learned, model);
  const open = (key: keyof LimitValues) => config?.[key] === undefined && fromLearned[key] === undefined;
  const found =
    baseUrl !== undefined && (open('contextLength') || open('outputCap'))
      ? await discoverLimits({ ...discovery, baseUrl, model })
      : undefined;
  const catalog = open('contextLength') || open('outputCap') ? lookupModel({ model, provider }) : undefined;
  const pickValue = (key: keyof LimitValues): [number | undefined, LimitSource] => {
    if (config?.[key] !== undefined) return [config[key], 'config'];
    if (fromLearned[key] !== undefined) return [fromLearned[key], 'learned'];
    if (found?.[key] !== undefined) return [found[key], `discovery:${found.endpoint}`];
    if (catalog?.[key] !== undefined) return [catalog[key], 'catalog'];
    return [undefined, 'fallback'];
  };
  const [contextLength = FALLBACK_CONTEXT_LENGTH, contextSource] = pickValue('contextLength');
  const [outputCap, outputSource] = pickValue('outputCap');
  return {
    model,
    contextLength,
    ...(outputCap === undefined ? {} : { outputCap }),
    source: { contextLength: contextSource, outputCap: outputSource },
    ...(found ? { discovery: found } : {}),
    ...(catalog ? { catalog } : {}),
  };
}
