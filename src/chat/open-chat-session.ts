/**
 * @module
 * Everything a chat needs, from the config and the flags: the client, the limits in force (with
 * where each came from), the manager, the built-in and MCP tools, the session store and the session.
 */

import { type ReserveReason, SpillwayError, toolResultLimit } from '../core/index.js';
import type { LoopTool } from '../loop/index.js';
import { ollamaModelWithNumCtx, type ResolvedLimits } from '../models/index.js';
import { defaultStorePath, openSessionStore, type SessionStore } from '../store/index.js';
import { createBuiltinTools } from './builtin-tools.js';
import type { ChatConfig } from './chat-config.js';
import { ChatSession } from './chat-session.js';
import type { ConfirmAction } from './confirm-action.js';
import {
  createChatClient,
  DEFAULT_BASE_URLS,
  formatForBaseUrl,
  resolveApiKey,
} from './create-chat-client.js';
import type { ChatNotice } from './describe-event.js';
import { requireApiKey, withErrorHints } from './explain-provider-error.js';
import { resolveChatModel } from './resolve-chat-model.js';
import type { CommandOutput } from './run-command-tool.js';
import type { ChatPrices } from './session-usage.js';

/** Settings given on the command line; they win over the config file. */
export interface ChatFlags {
  baseUrl?: string;
  model?: string;
  format?: 'openai' | 'anthropic';
  contextLength?: number;
  outputCap?: number;
  /** `--hard-context-length` / `--hard-output-cap`: limits that win over everything. */
  hardContextLength?: number;
  hardOutputCap?: number;
  /** The session database (default `SPILLWAY_STORE`, else the user's data directory). */
  store?: string;
  /** A session to continue. */
  resume?: string;
}

/** Options of {@link openChatSession}. */
export interface OpenChatSessionOptions {
  config: ChatConfig;
  flags?: ChatFlags;
  env?: NodeJS.ProcessEnv;
  /** The project directory the file tools act in (default the working directory). */
  root?: string;
  confirm: ConfirmAction;
  /** Start-up notices: MCP servers that failed, the API key's source… */
  onNotice?: (notice: ChatNotice) => void;
  /** A running command's output, as it arrives. */
  onCommandOutput?: CommandOutput;
  stream?: boolean;
}

/** An open chat and what closes it. */
export interface OpenChat {
  session: ChatSession;
  /** The limits of the model in use, with where each came from. */
  readonly limits: ResolvedLimits;
  /** Why the reserve given to the manager is what it is. */
  readonly reserveReason: ReserveReason;
  baseUrl: string;
  format: 'openai' | 'anthropic';
  store: SessionStore;
  /** Prices from the config, for the cost. */
  prices?: ChatPrices;
  /** Switches to another model from the next prompt on: its limits resolved, a new manager. */
  useModel(model: string): Promise<ResolvedLimits>;
  /** Closes MCP connections and the store. */
  close(): Promise<void>;
}

/** Each figure from the flags when they give it (soft or hard), else from the config. */
function limitSettings(
  flags: ChatFlags,
  config: ChatConfig,
): Pick<ChatFlags, 'contextLength' | 'outputCap' | 'hardContextLength' | 'hardOutputCap'> {
  const window = flags.contextLength !== undefined || flags.hardContextLength !== undefined ? flags : config;
  const cap = flags.outputCap !== undefined || flags.hardOutputCap !== undefined ? flags : config;
  return {
    ...(window.contextLength === undefined ? {} : { contextLength: window.contextLength }),
    ...(window.hardContextLength === undefined ? {} : { hardContextLength: window.hardContextLength }),
    ...(cap.outputCap === undefined ? {} : { outputCap: cap.outputCap }),
    ...(cap.hardOutputCap === undefined ? {} : { hardOutputCap: cap.hardOutputCap }),
  };
}

/** What resolving the limits found worth telling: overridden figures, Ollama's window, unreachable servers. */
function tellLimits(limits: ResolvedLimits, onNotice: OpenChatSessionOptions['onNotice']): void {
  for (const notice of limits.notices ?? []) onNotice?.({ level: 'info', text: notice.message });
  for (const error of limits.errors ?? []) onNotice?.({ level: 'warning', text: error.message });
}

/** The Ollama model that runs `model` with `numCtx` (created on first use). */
async function ollamaModel({
  baseUrl,
  model,
  numCtx,
  apiKey,
  onNotice,
}: {
  baseUrl: string;
  model: string;
  numCtx: number;
  apiKey: string | undefined;
  onNotice: OpenChatSessionOptions['onNotice'];
}): Promise<string> {
  const result = await ollamaModelWithNumCtx({
    baseUrl,
    model,
    numCtx,
    ...(apiKey ? { headers: { authorization: `Bearer ${apiKey}` } } : {}),
  });
  onNotice?.({
    level: 'info',
    text: `Ollama: ${result.created ? 'created' : 'using'} ${result.model}, ${model} with num_ctx ${numCtx} (ollama_num_ctx; the OpenAI-compatible endpoint cannot set it per request)`,
  });
  return result.model;
}

async function mcpTools(
  config: ChatConfig,
  builtins: LoopTool[],
  onNotice: OpenChatSessionOptions['onNotice'],
): Promise<{ tools: () => LoopTool[]; close: () => Promise<void> }> {
  if (config.mcpServers.length === 0) return { tools: () => builtins, close: async () => {} };
  const { connectMcpServers, createToolset, DEFAULT_MAX_LOADED_TOOLS } = await import('../mcp/index.js');
  const servers = await connectMcpServers({ servers: config.mcpServers });
  for (const failure of servers.failures) onNotice?.({ level: 'warning', text: failure.error.message });
  const { enabled, maxLoaded = DEFAULT_MAX_LOADED_TOOLS, alwaysLoaded } = config.deferredTools;
  const count = servers.connections.reduce((total, connection) => total + connection.tools.length, 0);
  const deferred = enabled === 'auto' ? count > maxLoaded : enabled;
  const toolset = createToolset({
    builtins,
    servers: servers.connections,
    deferred: deferred ? { maxLoaded, alwaysLoaded } : false,
  });
  onNotice?.({
    level: 'info',
    text: `MCP: ${servers.connections.map((connection) => `${connection.name} (${connection.tools.length} tools)`).join(', ') || 'no server connected'}${deferred ? `; schemas load on demand (load_tools, at most ${maxLoaded} at once)` : ''}`,
  });
  return { tools: () => toolset.tools(), close: () => servers.close() };
}

/**
 * Opens a chat: flags over the config file, the API key from the config or the environment, limits
 * resolved in the one order (hard config > stated, from the store > probed > discovered > claimed >
 * catalog > config > fallback; what overrode what, and a server that cannot be reached, told through
 * `onNotice`), an Ollama model run with the configured `ollama_num_ctx`, the MCP servers connected,
 * and a new session or the one `flags.resume` names.
 *
 * @example
 * const chat = await openChatSession({ config: await loadChatConfig(), flags: { model: 'gpt-4o' }, confirm });
 * await chat.session.send('hello');
 * await chat.close();
 */
export async function openChatSession({
  config,
  flags = {},
  env = process.env,
  root = process.cwd(),
  confirm,
  onNotice,
  onCommandOutput,
  stream = true,
}: OpenChatSessionOptions): Promise<OpenChat> {
  const configuredBase = flags.baseUrl ?? config.baseUrl;
  const format = flags.format ?? config.format ?? formatForBaseUrl(configuredBase);
  const baseUrl = configuredBase ?? DEFAULT_BASE_URLS[format];
  const asked = flags.model ?? config.model;
  if (asked === undefined)
    throw new SpillwayError(
      'invalid_argument',
      'give the model with --model ID, or set "model" in spillway.config.json',
    );
  const { apiKey, source: keySource } = resolveApiKey({
    format,
    ...(config.apiKey ? { configKey: config.apiKey } : {}),
    env,
  });
  requireApiKey({ baseUrl, format, ...(apiKey ? { apiKey } : {}) });
  const client = withErrorHints(
    createChatClient({
      format,
      baseUrl,
      ...(apiKey ? { apiKey } : {}),
      ...(config.streamTimeouts ? { streamTimeouts: config.streamTimeouts } : {}),
    }),
    { format, baseUrl, keySource },
  );
  const model =
    config.ollamaNumCtx === undefined
      ? asked
      : await ollamaModel({ baseUrl, model: asked, numCtx: config.ollamaNumCtx, apiKey, onNotice });
  const store = openSessionStore({
    path: flags.store ?? defaultStorePath(env),
    // The user asked for no store: the JSON file that stands in is said once, as information.
    onFallback: ({ package: name, path }) =>
      onNotice?.({ level: 'info', text: `sessions are kept in ${path} (${name} is not installed)` }),
  });
  try {
    const { contextLength, outputCap, hardContextLength, hardOutputCap } = limitSettings(flags, config);
    // Explicit limits are the configured model's; another model chosen with /model has its own.
    const chooseModel = (id: string) =>
      resolveChatModel({
        model: id,
        baseUrl,
        format,
        ...(apiKey ? { apiKey } : {}),
        ...(id === model && contextLength !== undefined ? { contextLength } : {}),
        ...(id === model && outputCap !== undefined ? { outputCap } : {}),
        ...(id === model && hardContextLength !== undefined ? { hardContextLength } : {}),
        ...(id === model && hardOutputCap !== undefined ? { hardOutputCap } : {}),
        ...(config.reserve === undefined ? {} : { reserve: config.reserve }),
        ...(config.safetyRatio === undefined ? {} : { safetyRatio: config.safetyRatio }),
        ...(config.summaryMaxTokens === undefined ? {} : { summaryMaxTokens: config.summaryMaxTokens }),
        ...(config.cutRunway === undefined ? {} : { cutRunway: config.cutRunway }),
        overflowPatterns: config.overflowPatterns,
        store,
      });
    let chosen = await chooseModel(model);
    tellLimits(chosen.limits, onNotice);
    // The send policy's share of the prompt budget per tool result: the newest result is never
    // compressed or pruned, so one large file must not be able to leave the rest no room.
    let session: ChatSession | undefined;
    const builtins = createBuiltinTools({
      root,
      confirm,
      outputLimit: {
        tokens: () =>
          session ? toolResultLimit({ budget: session.budget, calls: 1 }) : Number.POSITIVE_INFINITY,
        get model() {
          return session?.model ?? model;
        },
      },
      ...(config.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: config.commandTimeoutMs }),
      ...(onCommandOutput ? { onCommandOutput } : {}),
    });
    const tools = await mcpTools(config, builtins, onNotice);
    const { reserveReason: _reason, ...first } = chosen;
    session = new ChatSession({
      client,
      ...first,
      ...(config.safetyRatio === undefined ? {} : { safetyRatio: config.safetyRatio }),
      tools: tools.tools,
      store,
      stream,
      ...(config.systemPrompt === undefined ? {} : { systemPrompt: config.systemPrompt }),
      ...(config.maxIterations === undefined ? {} : { maxIterations: config.maxIterations }),
      ...(config.summaryMaxTokens === undefined ? {} : { summaryMaxTokens: config.summaryMaxTokens }),
    });
    if (flags.resume !== undefined) session.resume(flags.resume);
    const open: ChatSession = session;
    return {
      session: open,
      get limits() {
        return chosen.limits;
      },
      get reserveReason() {
        return chosen.reserveReason;
      },
      baseUrl,
      format,
      store,
      ...(config.prices ? { prices: config.prices } : {}),
      async useModel(id) {
        chosen = await chooseModel(id);
        open.useModel(chosen);
        return chosen.limits;
      },
      close: async () => {
        open.close();
        await tools.close();
        store.close();
      },
    };
  } catch (error) {
    store.close();
    throw error;
  }
}
