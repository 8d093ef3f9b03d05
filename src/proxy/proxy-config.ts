/**
 * @module
 * The `spillway serve --config FILE` file: limits and recovery settings for the proxy, globally and
 * per upstream model, plus user overflow rows. Validated with zod 4 `z.strictObject` (a typo in a key
 * fails, naming its path); the overflow rows are compiled by {@link compileOverflowPatterns}.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { checkReserveInWindow } from '../config/check-consistency.js';
import { configPathText, configShapeError, parseConfigText } from '../config/config-error.js';
import { LIMIT_SETTING, LIMIT_SETTING_KEYS, limitFields, readLimitSetting } from '../config/limit-setting.js';
import { compileConfiguredOverflowPatterns } from '../config/overflow-patterns.js';
import { type OverflowPattern, SpillwayError } from '../core/index.js';

const positive = z.int().positive();

/** Settings that can be given globally and overridden per model. */
const MODEL_SETTINGS_SHAPE = {
  /**
   * The model's window, in tokens: a number is used when the upstream, its gateway and the catalog
   * state none; `{ "value": N, "hard": true }` wins over everything, a window the upstream states included.
   */
  context_length: LIMIT_SETTING.optional(),
  /** The model's reply cap, in tokens, given the same way. */
  output_cap: LIMIT_SETTING.optional(),
  /** A fixed reply reserve, instead of what a reply needs (1,024 tokens, or the request's `max_tokens` when less). */
  reserve: positive.optional(),
  /** The output cap of a summary request when recovery compacts with the upstream model. */
  summary_max_tokens: positive.optional(),
  /**
   * Turns a new cut leaves room for at the conversation's append rate (default 5): fewer keep more
   * history in each request, more keep the upstream's prefix cache warm longer.
   */
  cut_runway: z.number().min(0).max(100).optional(),
};

/** One model's overrides: `models["glm5.2"]`. */
const PROXY_MODEL_SETTINGS = z.strictObject(MODEL_SETTINGS_SHAPE);

/** The whole file. Unknown keys fail, at any depth. */
const PROXY_CONFIG = z.strictObject({
  ...MODEL_SETTINGS_SHAPE,
  /** Request bodies larger than this are answered 413 (default 32 MiB). */
  max_body_bytes: positive.optional(),
  /** How long to wait for a connection to the upstream, in ms (default 10,000). */
  connect_timeout_ms: positive.optional(),
  /** How long to wait for the first byte of the upstream's answer, in ms (default 300,000). */
  first_byte_timeout_ms: positive.optional(),
  /** How long to wait between two chunks of the upstream's answer, in ms (default 300,000). */
  idle_timeout_ms: positive.optional(),
  /** User overflow rows, tried before the catalog (see `compileOverflowPatterns`). */
  overflow_patterns: z.array(z.unknown()).optional(),
  /**
   * Whether an upstream gateway in front of a validating backend (LiteLLM over vLLM) is sent the
   * zero-cost probe, once per model and discovery lifetime (default true).
   */
  probe_limits: z.boolean().optional(),
  /** Per-model overrides, keyed by the model id clients send (matched exactly, then ignoring case). */
  models: z.record(z.string().min(1), PROXY_MODEL_SETTINGS).optional(),
});

/** The file as written (snake_case). */
type ProxyConfigFile = z.infer<typeof PROXY_CONFIG>;

/**
 * Limits and recovery settings for one model, in the library's spelling. A limit marked hard in the
 * file is `hardContextLength` / `hardOutputCap`; a model's entry replaces the top-level figure in
 * either form.
 */
export interface ProxyModelSettings {
  contextLength?: number;
  outputCap?: number;
  hardContextLength?: number;
  hardOutputCap?: number;
  reserve?: number;
  summaryMaxTokens?: number;
  cutRunway?: number;
}

/** A validated proxy configuration. */
export interface ProxyConfig extends ProxyModelSettings {
  maxBodyBytes?: number;
  /** Waits on the upstream, in ms (the proxy's defaults where absent). */
  connectTimeoutMs?: number;
  firstByteTimeoutMs?: number;
  idleTimeoutMs?: number;
  /** `false`: never send the zero-cost probe. */
  probeLimits?: boolean;
  /** Compiled user rows for `classifyOverflow({ patterns })`. */
  overflowPatterns: OverflowPattern[];
  /** Per-model overrides by model id. */
  models: Record<string, ProxyModelSettings>;
}

/** Options of {@link parseProxyConfig}. */
export interface ParseProxyConfigOptions {
  /** Where the value came from (a file path), prefixed to every message. */
  source?: string;
}

function settingsOf(value: z.infer<typeof PROXY_MODEL_SETTINGS>): ProxyModelSettings {
  const settings: ProxyModelSettings = {
    ...limitFields(value.context_length, { soft: 'contextLength', hard: 'hardContextLength' }),
    ...limitFields(value.output_cap, { soft: 'outputCap', hard: 'hardOutputCap' }),
  };
  if (value.reserve !== undefined) settings.reserve = value.reserve;
  if (value.summary_max_tokens !== undefined) settings.summaryMaxTokens = value.summary_max_tokens;
  if (value.cut_runway !== undefined) settings.cutRunway = value.cut_runway;
  return settings;
}

/** The keys allowed where an unknown key was found, for the message. */
function allowedKeys(path: readonly PropertyKey[]): string[] {
  const last = path.at(-1);
  if (last === 'context_length' || last === 'output_cap') return [...LIMIT_SETTING_KEYS];
  return path.length === 0 ? Object.keys(PROXY_CONFIG.shape) : Object.keys(MODEL_SETTINGS_SHAPE);
}

/**
 * Validates a parsed proxy configuration and compiles its overflow rows. Throws
 * `SpillwayError('invalid_config')` whose message starts with the source and the path of the first
 * problem: `proxy.json: models["glm5.2"].context_lenght: unknown key; use one of context_length, …`.
 *
 * @example
 * const config = parseProxyConfig({ context_length: 32_768, models: { 'glm5.2': { output_cap: 8_192 } } });
 * proxyModelSettings({ config, model: 'glm5.2' }); // { contextLength: 32768, outputCap: 8192 }
 */
export function parseProxyConfig(value: unknown, options: ParseProxyConfigOptions = {}): ProxyConfig {
  const prefix = options.source === undefined ? '' : `${options.source}: `;
  const parsed = PROXY_CONFIG.safeParse(value);
  if (!parsed.success) throw configShapeError(parsed.error, { prefix, allowedKeys });
  const file = parsed.data;
  const overflowPatterns = compileConfiguredOverflowPatterns(file.overflow_patterns, prefix);
  const models: Record<string, ProxyModelSettings> = {};
  for (const [model, settings] of Object.entries(file.models ?? {})) models[model] = settingsOf(settings);
  const config: ProxyConfig = { ...settingsOf(file), overflowPatterns, models };
  if (file.max_body_bytes !== undefined) config.maxBodyBytes = file.max_body_bytes;
  if (file.connect_timeout_ms !== undefined) config.connectTimeoutMs = file.connect_timeout_ms;
  if (file.first_byte_timeout_ms !== undefined) config.firstByteTimeoutMs = file.first_byte_timeout_ms;
  if (file.idle_timeout_ms !== undefined) config.idleTimeoutMs = file.idle_timeout_ms;
  if (file.probe_limits !== undefined) config.probeLimits = file.probe_limits;
  checkProxyConsistency(file, prefix);
  return config;
}

/**
 * The reserve must leave room for a prompt in the window, at the top level and for every model
 * (its own values over the top-level ones), naming the keys each value came from.
 */
function checkProxyConsistency(file: ProxyConfigFile, prefix: string): void {
  const window = (setting: ProxyConfigFile['context_length']) => readLimitSetting(setting)?.value;
  checkReserveInWindow({
    contextLength: window(file.context_length),
    reserve: file.reserve,
    paths: { contextLength: 'context_length', reserve: 'reserve' },
    prefix,
  });
  for (const [model, settings] of Object.entries(file.models ?? {})) {
    const own = (key: string) => configPathText(['models', model, key]);
    checkReserveInWindow({
      contextLength: window(settings.context_length ?? file.context_length),
      reserve: settings.reserve ?? file.reserve,
      paths: {
        contextLength: settings.context_length === undefined ? 'context_length' : own('context_length'),
        reserve: settings.reserve === undefined ? 'reserve' : own('reserve'),
      },
      prefix,
    });
  }
}

/** {@link parseProxyConfig} as a result instead of a throw. */
export function safeParseProxyConfig(
  value: unknown,
  options: ParseProxyConfigOptions = {},
): { success: true; config: ProxyConfig } | { success: false; error: SpillwayError } {
  try {
    return { success: true, config: parseProxyConfig(value, options) };
  } catch (error) {
    if (SpillwayError.isInstance(error)) return { success: false, error };
    throw error;
  }
}

/** Reads, parses and validates a proxy configuration file; every error names the file. */
export async function loadProxyConfig(path: string): Promise<ProxyConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new SpillwayError(
      'invalid_config',
      `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      { cause: error },
    );
  }
  return parseProxyConfig(parseConfigText(text, path), { source: path });
}

/**
 * The settings in force for a model: its `models` entry (exact id, else the same id ignoring case)
 * over the top-level values.
 */
export function proxyModelSettings({
  config,
  model,
}: {
  config: ProxyConfig | undefined;
  model: string | undefined;
}): ProxyModelSettings {
  if (!config) return {};
  const { contextLength, outputCap, hardContextLength, hardOutputCap, reserve, summaryMaxTokens, cutRunway } =
    config;
  const base: ProxyModelSettings = {
    contextLength,
    outputCap,
    hardContextLength,
    hardOutputCap,
    reserve,
    summaryMaxTokens,
    cutRunway,
  };
  let override: ProxyModelSettings | undefined;
  if (model !== undefined) {
    override = config.models[model];
    if (!override) {
      const lower = model.toLowerCase();
      override = Object.entries(config.models).find(([key]) => key.toLowerCase() === lower)?.[1];
    }
  }
  // A model's own figure replaces the top-level one whether either is marked hard.
  if (override?.contextLength !== undefined || override?.hardContextLength !== undefined)
    [base.contextLength, base.hardContextLength] = [undefined, undefined];
  if (override?.outputCap !== undefined || override?.hardOutputCap !== undefined)
    [base.outputCap, base.hardOutputCap] = [undefined, undefined];
  const merged: ProxyModelSettings = { ...base, ...override };
  for (const key of Object.keys(merged) as (keyof ProxyModelSettings)[])
    if (merged[key] === undefined) delete merged[key];
  return merged;
}
