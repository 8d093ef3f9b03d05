/**
 * @module
 * The `spillway chat` configuration file (`spillway.config.json` in the working directory, else
 * `~/.config/spillway/config.json`, or `--config FILE`): the endpoint, limits, compaction and recovery
 * settings, user overflow rows, MCP servers and deferred tool loading. Validated with zod 4
 * `z.strictObject` at every depth, so a typo in a key fails with its path; overflow rows are compiled
 * by {@link compileOverflowPatterns}.
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { checkReserveInWindow } from '../config/check-consistency.js';
import { configShapeError, parseConfigText } from '../config/config-error.js';
import { LIMIT_SETTING, LIMIT_SETTING_KEYS, limitFields, readLimitSetting } from '../config/limit-setting.js';
import { compileConfiguredOverflowPatterns } from '../config/overflow-patterns.js';
import { type OverflowPattern, SpillwayError } from '../core/index.js';

/** The file looked for in the working directory. */
export const CHAT_CONFIG_FILE = 'spillway.config.json';

const positive = z.int().positive();
/** MCP server names become tool-name prefixes (`github__create_issue`). */
const serverName = z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, 'must be 1–32 letters, digits, "_" or "-"');

const STDIO_SERVER = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
});
const HTTP_SERVER = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string(), z.string()).optional(),
});

/** The whole file. Unknown keys fail, at any depth. */
export const CHAT_CONFIG = z.strictObject({
  /** The API root (`http://127.0.0.1:8000/v1`; Anthropic: `https://api.anthropic.com`). */
  base_url: z.url({ protocol: /^https?$/ }).optional(),
  model: z.string().min(1).optional(),
  /** The wire format: Chat Completions (`openai`) or Messages (`anthropic`). */
  format: z.enum(['openai', 'anthropic']).optional(),
  /** Sent as the bearer token (`x-api-key` for Anthropic). The environment is read when absent. */
  api_key: z.string().min(1).optional(),
  /**
   * The model's window: a number is used when the server, its gateway and the catalog state none;
   * `{ "value": N, "hard": true }` wins over everything, a window the server states included.
   */
  context_length: LIMIT_SETTING.optional(),
  /** The model's reply cap, given the same way. */
  output_cap: LIMIT_SETTING.optional(),
  /**
   * Ollama: run the model with this `num_ctx`. Ollama's OpenAI-compatible endpoint cannot set it per
   * request, so a model with `PARAMETER num_ctx` is created from the configured one and used.
   */
  ollama_num_ctx: positive.optional(),
  /** Tokens kept for the reply when fitting the prompt. */
  reserve: positive.optional(),
  /** Share of the window kept free for estimation error (default 0.03). */
  safety_ratio: z.number().min(0).lt(0.5).optional(),
  /** The output cap of a compaction's summary request (default 16,384; never more than half the window). */
  summary_max_tokens: positive.optional(),
  /** Turns a new cut leaves room for at the conversation's append rate (default 5). */
  cut_runway: z.number().min(0).max(100).optional(),
  /** User overflow rows `{ name, kind, regex }`, tried before the catalog. */
  overflow_patterns: z.array(z.unknown()).optional(),
  /** MCP servers by name: a command to spawn (stdio) or a streamable HTTP `url`. */
  mcp_servers: z.record(serverName, z.union([STDIO_SERVER, HTTP_SERVER])).optional(),
  /** Deferred tool loading: MCP schemas sent only when the model loads them with `load_tools`. */
  deferred_tools: z
    .strictObject({
      /** `auto` (default): defer when the MCP servers list more tools than `max_loaded`. */
      enabled: z.union([z.boolean(), z.literal('auto')]).optional(),
      /** The most MCP tools with full schemas at once (default 40). */
      max_loaded: positive.optional(),
      /** MCP tools (`server__tool`) always sent with full schemas. */
      always_loaded: z.array(z.string().min(1)).optional(),
    })
    .optional(),
  /** Tool turns per prompt before the model is asked to answer without tools (default 20). */
  max_iterations: positive.optional(),
  /** The system prompt of new sessions. */
  system_prompt: z.string().min(1).optional(),
  /** When `run_command` stops a command and everything it started (default 120). */
  command_timeout_seconds: positive.optional(),
  /** How long a streamed reply may go silent once it has begun, in seconds (default 30). */
  stream_idle_timeout_seconds: positive.optional(),
  /** How long the first chunk of a streamed reply may take, in seconds (default 300: a long prefill). */
  first_chunk_timeout_seconds: positive.optional(),
  /** Prices in US dollars per million tokens, for `/cost` and the meter. */
  prices: z
    .strictObject({
      input: z.number().min(0),
      /** Prompt tokens read from the provider's cache (default: `input`). */
      cached_input: z.number().min(0).optional(),
      /** Prompt tokens written to the cache, Anthropic (default: `input`). */
      cache_write: z.number().min(0).optional(),
      output: z.number().min(0),
    })
    .optional(),
});

/** The file as written (snake_case). */
export type ChatConfigFile = z.infer<typeof CHAT_CONFIG>;

/** One MCP server, in the shape `connectMcpServers` takes. */
export type ChatMcpServer =
  | { name: string; command: string; args?: string[]; env?: Record<string, string>; cwd?: string }
  | { name: string; url: string; headers?: Record<string, string> };

/** A validated chat configuration, in the library's spelling. */
export interface ChatConfig {
  baseUrl?: string;
  model?: string;
  format?: 'openai' | 'anthropic';
  apiKey?: string;
  contextLength?: number;
  outputCap?: number;
  /** A window or cap marked hard in the file (`{ "value": N, "hard": true }`). */
  hardContextLength?: number;
  hardOutputCap?: number;
  /** Ollama: the `num_ctx` to run the model with. */
  ollamaNumCtx?: number;
  reserve?: number;
  safetyRatio?: number;
  summaryMaxTokens?: number;
  cutRunway?: number;
  /** Compiled user rows for `classifyOverflow({ patterns })`. */
  overflowPatterns: OverflowPattern[];
  mcpServers: ChatMcpServer[];
  deferredTools: { enabled: boolean | 'auto'; maxLoaded?: number; alwaysLoaded: string[] };
  maxIterations?: number;
  systemPrompt?: string;
  commandTimeoutMs?: number;
  /** How long a streamed reply may go silent, once begun and before its first chunk. */
  streamTimeouts?: { idleMs?: number; firstChunkMs?: number };
  /** US dollars per million tokens. */
  prices?: { input: number; cachedInput?: number; cacheWrite?: number; output: number };
  /** The file it was read from, when it was. */
  source?: string;
}

/** The keys allowed where an unknown key was found, for the message. */
function allowedKeys(path: readonly PropertyKey[]): string[] {
  const [first, , third] = path;
  if (path.length === 0) return Object.keys(CHAT_CONFIG.shape);
  if (first === 'context_length' || first === 'output_cap') return [...LIMIT_SETTING_KEYS];
  if (first === 'deferred_tools') return ['enabled', 'max_loaded', 'always_loaded'];
  if (first === 'prices') return ['input', 'cached_input', 'cache_write', 'output'];
  if (first === 'mcp_servers' && third === undefined)
    return ['command', 'args', 'env', 'cwd (stdio)', 'url', 'headers (streamable HTTP)'];
  return [];
}

/** Options of {@link parseChatConfig}. */
export interface ParseChatConfigOptions {
  /** Where the value came from (a file path), prefixed to every message. */
  source?: string;
}

/**
 * Validates a parsed chat configuration and compiles its overflow rows. Throws
 * `SpillwayError('invalid_config')` whose message starts with the source and the path of the first
 * problem: `spillway.config.json: mcp_servers.github.comand: unknown key; use one of command, …`.
 *
 * @example
 * const config = parseChatConfig({ base_url: 'http://127.0.0.1:8000/v1', model: 'qwen2.5-coder', context_length: 32_768 });
 * config.contextLength; // 32768
 */
export function parseChatConfig(value: unknown, options: ParseChatConfigOptions = {}): ChatConfig {
  const prefix = options.source === undefined ? '' : `${options.source}: `;
  const parsed = CHAT_CONFIG.safeParse(value);
  if (!parsed.success) throw configShapeError(parsed.error, { prefix, allowedKeys });
  const file = parsed.data;
  const overflowPatterns = compileConfiguredOverflowPatterns(file.overflow_patterns, prefix);
  const mcpServers: ChatMcpServer[] = Object.entries(file.mcp_servers ?? {}).map(([name, server]) => ({
    name,
    ...server,
  }));
  const config: ChatConfig = {
    overflowPatterns,
    mcpServers,
    deferredTools: {
      enabled: file.deferred_tools?.enabled ?? 'auto',
      alwaysLoaded: file.deferred_tools?.always_loaded ?? [],
      ...(file.deferred_tools?.max_loaded === undefined ? {} : { maxLoaded: file.deferred_tools.max_loaded }),
    },
  };
  const copy: Array<[keyof ChatConfig, unknown]> = [
    ['baseUrl', file.base_url],
    ['model', file.model],
    ['format', file.format],
    ['apiKey', file.api_key],
    ['ollamaNumCtx', file.ollama_num_ctx],
    ['reserve', file.reserve],
    ['safetyRatio', file.safety_ratio],
    ['summaryMaxTokens', file.summary_max_tokens],
    ['cutRunway', file.cut_runway],
    ['maxIterations', file.max_iterations],
    ['systemPrompt', file.system_prompt],
    [
      'commandTimeoutMs',
      file.command_timeout_seconds === undefined ? undefined : file.command_timeout_seconds * 1_000,
    ],
    [
      'streamTimeouts',
      file.stream_idle_timeout_seconds === undefined && file.first_chunk_timeout_seconds === undefined
        ? undefined
        : {
            ...(file.stream_idle_timeout_seconds === undefined
              ? {}
              : { idleMs: Math.round(file.stream_idle_timeout_seconds * 1_000) }),
            ...(file.first_chunk_timeout_seconds === undefined
              ? {}
              : { firstChunkMs: Math.round(file.first_chunk_timeout_seconds * 1_000) }),
          },
    ],
    [
      'prices',
      file.prices === undefined
        ? undefined
        : {
            input: file.prices.input,
            output: file.prices.output,
            ...(file.prices.cached_input === undefined ? {} : { cachedInput: file.prices.cached_input }),
            ...(file.prices.cache_write === undefined ? {} : { cacheWrite: file.prices.cache_write }),
          },
    ],
    ['source', options.source],
  ];
  for (const [key, entry] of copy)
    if (entry !== undefined) (config as unknown as Record<string, unknown>)[key] = entry;
  Object.assign(
    config,
    limitFields(file.context_length, { soft: 'contextLength', hard: 'hardContextLength' }),
    limitFields(file.output_cap, { soft: 'outputCap', hard: 'hardOutputCap' }),
  );
  checkChatConsistency(file, prefix);
  return config;
}

/** Keys that are valid alone but cannot hold together: each failure names both keys. */
function checkChatConsistency(file: ChatConfigFile, prefix: string): void {
  checkReserveInWindow({
    contextLength: readLimitSetting(file.context_length)?.value,
    reserve: file.reserve,
    safetyRatio: file.safety_ratio,
    paths: { contextLength: 'context_length', reserve: 'reserve' },
    prefix,
  });
  const deferred = file.deferred_tools;
  const always = deferred?.always_loaded?.length ?? 0;
  if (deferred?.max_loaded !== undefined && always > deferred.max_loaded)
    throw new SpillwayError(
      'invalid_config',
      `${prefix}deferred_tools.always_loaded names ${always} tools, more than deferred_tools.max_loaded (${deferred.max_loaded}) allows at once; raise max_loaded or list fewer tools`,
      { data: { path: 'deferred_tools.always_loaded', conflictsWith: 'deferred_tools.max_loaded' } },
    );
}

/** {@link parseChatConfig} as a result instead of a throw. */
export function safeParseChatConfig(
  value: unknown,
  options: ParseChatConfigOptions = {},
): { success: true; config: ChatConfig } | { success: false; error: SpillwayError } {
  try {
    return { success: true, config: parseChatConfig(value, options) };
  } catch (error) {
    if (SpillwayError.isInstance(error)) return { success: false, error };
    throw error;
  }
}

/** Options of {@link loadChatConfig}. */
export interface LoadChatConfigOptions {
  /** An explicit file (`--config FILE`): it must exist. */
  file?: string;
  /** Where `spillway.config.json` is looked for (default the working directory). */
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/** The files {@link loadChatConfig} tries, in order, when no file is given. */
export function chatConfigCandidates({
  cwd = process.cwd(),
  env = process.env,
}: Pick<LoadChatConfigOptions, 'cwd' | 'env'> = {}): string[] {
  const configHome = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return [resolve(cwd, CHAT_CONFIG_FILE), join(configHome, 'spillway', 'config.json')];
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SpillwayError(
      'invalid_config',
      `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      { cause: error },
    );
  }
}

/**
 * Reads the chat configuration: `file` when given (it must exist), else the first of
 * `./spillway.config.json` and `$XDG_CONFIG_HOME/spillway/config.json` (`~/.config/…`) that exists;
 * none is an empty configuration. Every error names the file.
 *
 * @example
 * const config = await loadChatConfig({ file: values.config });
 */
export async function loadChatConfig(options: LoadChatConfigOptions = {}): Promise<ChatConfig> {
  const candidates = options.file === undefined ? chatConfigCandidates(options) : [resolve(options.file)];
  for (const path of candidates) {
    const text = await readText(path);
    if (text === undefined) {
      if (options.file !== undefined)
        throw new SpillwayError('invalid_config', `cannot read ${path}: ENOENT; check the --config path`);
      continue;
    }
    return parseChatConfig(parseConfigText(text, path), { source: path });
  }
  return parseChatConfig({});
}
