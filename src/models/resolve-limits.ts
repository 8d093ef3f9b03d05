/**
 * @module
 * The one resolution order for a model's limits, each figure reported with where it came from,
 * every source's own figure kept, and what the user should be told.
 */
import {
  FALLBACK_CONTEXT_LENGTH,
  isPlausibleWindow,
  SpillwayError,
  type WindowCheck,
} from '../core/index.js';
import { type DiscoverLimitsOptions, type DiscoveryOutcome, discoverServer } from './discover-limits.js';
import type { DiscoveredLimits } from './discovery-probe.js';
import { type LimitName, type LimitNotice, ollamaNotice, overrideNotice } from './limit-notices.js';
import type { LimitFigure, LimitSource } from './limit-source.js';
import { type CatalogMatch, lookupModel } from './model-catalog.js';
import { modelNameProblem } from './model-name.js';
import { shouldProbe } from './probe-limits.js';
import { type ProbeOutcome, probeOnce } from './probe-once.js';

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
  /** A running server to ask (vLLM, llama.cpp, Ollama, LM Studio, TGI, LiteLLM). */
  baseUrl?: string;
  /** Configured limits: used when no server, gateway or catalog states the figure. */
  config?: LimitValues;
  /** Configured limits marked as hard: they win over everything, what servers state included. */
  hard?: LimitValues;
  /** Limits providers stated in overflow errors and silent truncations (`store.learnedLimits()`). */
  learned?: LearnedLimits;
  /** Whether a gateway in front of a validating backend may be sent the zero-cost probe (default true). */
  probe?: boolean;
  /** Deadline of the probe, in milliseconds (default 3,000). */
  probeTimeoutMs?: number;
}

/** A source that could not be asked. */
export interface LimitError {
  /** `discovery`: the server at the base URL; `probe`: the zero-cost probe. */
  source: 'discovery' | 'probe';
  code: string;
  message: string;
  baseUrl: string;
}

/** A model's limits in force and where each came from. */
export interface ResolvedLimits {
  model: string;
  contextLength: number;
  /** Absent when nothing states one; the budget then reserves its default share of the window. */
  outputCap?: number;
  source: { contextLength: LimitSource; outputCap: LimitSource };
  /** Every figure a source stated, strongest first; the first is the one in force. */
  figures: { contextLength: LimitFigure[]; outputCap: LimitFigure[] };
  /** What the server reported, when discovery ran and found it. */
  discovery?: DiscoveredLimits;
  /** The zero-cost probe's answer, when it was sent. */
  probe?: ProbeOutcome;
  /** The catalog entry the model matched, if any. */
  catalog?: CatalogMatch;
  /**
   * `prompt` when the server found checks the prompt alone against the window (llama.cpp's server:
   * `max_tokens` is never rejected, a reply stops at the window's end), for the reply reserve.
   */
  windowCheck?: WindowCheck;
  /** Sources that could not be asked: an unreachable server is reported, never silently skipped. */
  errors?: LimitError[];
  /** What the user should be told once: overridden claims, an Ollama window below the model's. */
  notices?: LimitNotice[];
}

function checkValues(values: LimitValues | undefined, name: string): void {
  for (const key of ['contextLength', 'outputCap'] as const) {
    const value = values?.[key];
    if (value !== undefined && (!Number.isInteger(value) || value <= 0))
      throw new SpillwayError('invalid_config', `${name}.${key} must be a positive integer, got ${value}`);
  }
}

function learnedFor(learned: LearnedLimits | undefined, model: string): LimitValues {
  if (!learned) return {};
  const lower = model.toLowerCase();
  const entry = learned[model] ?? Object.entries(learned).find(([key]) => key.toLowerCase() === lower)?.[1];
  if (!entry) return {};
  const { contextLength, outputCap } = entry;
  return {
    ...(contextLength !== undefined && isPlausibleWindow(contextLength) ? { contextLength } : {}),
    ...(outputCap !== undefined && Number.isInteger(outputCap) && outputCap > 0 ? { outputCap } : {}),
  };
}

/** What each source says, strongest first. */
interface Sources {
  hard?: LimitValues;
  stated: LimitValues;
  probe?: ProbeOutcome;
  found?: DiscoveredLimits;
  catalog?: CatalogMatch;
  config?: LimitValues;
}

/** Every figure the sources state for one limit, strongest first. */
function figuresFor(key: keyof LimitValues, sources: Sources): LimitFigure[] {
  const { found } = sources;
  const foundSource: LimitSource | undefined = found
    ? found.claimed
      ? `claimed:${found.endpoint}`
      : `discovered:${found.endpoint}`
    : undefined;
  const candidates: Array<[number | undefined, LimitSource | undefined]> = [
    [sources.hard?.[key], 'config:hard'],
    [sources.stated[key], 'stated'],
    [sources.probe?.[key], 'probed'],
    [found?.[key], foundSource],
    [sources.catalog?.[key], 'catalog'],
    [sources.config?.[key], 'config'],
  ];
  return candidates.flatMap(([value, source]) =>
    value === undefined || source === undefined ? [] : [{ value, source }],
  );
}

/**
 * The window and output cap in force for a model, each from the strongest source that states it:
 * a configured value marked hard > a figure the provider stated in an error (learned) > the
 * zero-cost probe > what the server at `baseUrl` reports about itself > what a gateway claims >
 * the catalog > a configured value > the conservative 8,192-token fallback (no output cap). The
 * probe is sent only to a gateway in front of a validating backend (LiteLLM over vLLM) and only
 * when it could change the window. A server that cannot be reached is reported in `errors`; a
 * weaker source that said otherwise is reported in `notices`.
 *
 * @example
 * const limits = await resolveLimits({ model: 'glm5.2', baseUrl: 'http://litellm:4000/v1', learned: store.learnedLimits() });
 * // { contextLength: 210000, outputCap: 96000, source: { contextLength: 'probed', outputCap: 'claimed:/model/info' }, … }
 * const driver = new ConversationDriver({ model: limits.model, contextLength: limits.contextLength, outputCap: limits.outputCap });
 */
export async function resolveLimits({
  model,
  provider,
  baseUrl,
  config,
  hard,
  learned,
  probe = true,
  probeTimeoutMs,
  ...discovery
}: ResolveLimitsOptions): Promise<ResolvedLimits> {
  if (typeof model !== 'string' || model.trim() === '')
    throw new SpillwayError('invalid_argument', 'model must be a non-empty model id, such as gpt-4o');
  const problem = modelNameProblem(model);
  if (problem !== undefined) throw new SpillwayError('invalid_argument', problem);
  checkValues(config, 'config');
  checkValues(hard, 'hard');
  const stated = learnedFor(learned, model);
  const outcome: DiscoveryOutcome =
    baseUrl === undefined ? {} : await discoverServer({ ...discovery, baseUrl, model });
  const found = outcome.found;
  const probed =
    baseUrl !== undefined &&
    probe &&
    shouldProbe(found) &&
    hard?.contextLength === undefined &&
    stated.contextLength === undefined
      ? await probeOnce({
          ...discovery,
          baseUrl,
          model,
          ...(probeTimeoutMs ? { timeoutMs: probeTimeoutMs } : {}),
        })
      : undefined;
  const catalog = lookupModel({ model, provider });
  const sources: Sources = { hard, stated, probe: probed, found, catalog, config };
  const figures = {
    contextLength: figuresFor('contextLength', sources),
    outputCap: figuresFor('outputCap', sources),
  };
  const [window, cap] = [figures.contextLength[0], figures.outputCap[0]];
  const errors = limitErrors(outcome, probed, baseUrl);
  const notices = [
    overrideNotice('context_length' satisfies LimitName, figures.contextLength),
    overrideNotice('output_cap', figures.outputCap),
    ollamaNotice(found, model),
  ].filter((notice): notice is LimitNotice => notice !== undefined);
  return {
    model,
    contextLength: window?.value ?? FALLBACK_CONTEXT_LENGTH,
    ...(cap === undefined ? {} : { outputCap: cap.value }),
    source: { contextLength: window?.source ?? 'fallback', outputCap: cap?.source ?? 'fallback' },
    figures,
    ...(found ? { discovery: found } : {}),
    ...(probed ? { probe: probed } : {}),
    ...(catalog ? { catalog } : {}),
    ...(found?.server === 'llamacpp' && !found.claimed ? { windowCheck: 'prompt' as const } : {}),
    ...(errors.length > 0 ? { errors } : {}),
    ...(notices.length > 0 ? { notices } : {}),
  };
}

/** The sources that could not be asked. */
function limitErrors(
  outcome: DiscoveryOutcome,
  probed: ProbeOutcome | undefined,
  baseUrl: string | undefined,
): LimitError[] {
  const errors: LimitError[] = [];
  if (outcome.error) errors.push({ source: 'discovery', ...outcome.error });
  if (probed?.result === 'failed' && baseUrl !== undefined)
    errors.push({
      source: 'probe',
      code: 'probe_failed',
      message: `${probed.message ?? 'the probe failed'}; the window stays the gateway's claim until a rejection states it`,
      baseUrl,
    });
  return errors;
}
