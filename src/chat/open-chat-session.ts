/**
 * @module
 * Everything a chat needs, from the config and the flags: the client, the limits in force (with
 * where each came from), the manager, the built-in and MCP tools, the session store and the session.
 */

import type { ChatConfig } from '../config/chat-config.js';
import { COMPRESSION_BANDS, ConversationDriver, SpillwayError } from '../core/index.js';
import type { LoopTool } from '../loop/index.js';
import { type ResolvedLimits, resolveLimits } from '../models/index.js';
import { defaultStorePath, type SessionStore, SqliteSessionStore } from '../store/index.js';
import { createBuiltinTools } from './builtin-tools.js';
import { ChatSession } from './chat-session.js';
import { chooseReserve } from './choose-reserve.js';
import type { ConfirmAction } from './confirm-action.js';
import {
  createChatClient,
  DEFAULT_BASE_URLS,
  formatForBaseUrl,
  resolveApiKey,
} from './create-chat-client.js';
import type { ChatNotice } from './describe-event.js';

/** Settings given on the command line; they win over the config file. */
export interface ChatFlags {
  baseUrl?: string;
  model?: string;
  format?: 'openai' | 'anthropic';
  contextLength?: number;
  outputCap?: number;
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
  stream?: boolean;
}

/** An open chat and what closes it. */
export interface OpenChat {
  session: ChatSession;
  limits: ResolvedLimits;
  /** The reserve given to the manager, and why. */
  reserve: { tokens?: number; reason: 'config' | 'output cap' | 'default share' };
  baseUrl: string;
  format: 'openai' | 'anthropic';
  store: SessionStore;
  /** Closes MCP connections and the store. */
  close(): Promise<void>;
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
 * resolved in the one order (config > learned > discovery > catalog > fallback, learned limits from
 * the store), the MCP servers connected, and a new session or the one `flags.resume` names.
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
  stream = true,
}: OpenChatSessionOptions): Promise<OpenChat> {
  const configuredBase = flags.baseUrl ?? config.baseUrl;
  const format = flags.format ?? config.format ?? formatForBaseUrl(configuredBase);
  const baseUrl = configuredBase ?? DEFAULT_BASE_URLS[format];
  const model = flags.model ?? config.model;
  if (model === undefined)
    throw new SpillwayError(
      'invalid_argument',
      'give the model with --model ID, or set "model" in spillway.config.json',
    );
  const { apiKey } = resolveApiKey({ format, ...(config.apiKey ? { configKey: config.apiKey } : {}), env });
  const client = createChatClient({
    format,
    baseUrl,
    ...(apiKey ? { apiKey } : {}),
    overflowPatterns: config.overflowPatterns,
  });
  const store = new SqliteSessionStore(flags.store ?? defaultStorePath(env));
  try {
    const contextLength = flags.contextLength ?? config.contextLength;
    const outputCap = flags.outputCap ?? config.outputCap;
    const limits = await resolveLimits({
      model,
      baseUrl,
      ...(format === 'anthropic' ? { provider: 'anthropic' } : {}),
      config: {
        ...(contextLength === undefined ? {} : { contextLength }),
        ...(outputCap === undefined ? {} : { outputCap }),
      },
      learned: store.learnedLimits(),
      ...(apiKey && format === 'openai' ? { headers: { authorization: `Bearer ${apiKey}` } } : {}),
    });
    const reserveTokens = chooseReserve({
      contextLength: limits.contextLength,
      ...(limits.outputCap === undefined ? {} : { outputCap: limits.outputCap }),
      ...(config.reserve === undefined ? {} : { reserve: config.reserve }),
    });
    const driver = new ConversationDriver({
      model,
      contextLength: limits.contextLength,
      ...(limits.outputCap === undefined ? {} : { outputCap: limits.outputCap }),
      ...(reserveTokens === undefined ? {} : { reserve: reserveTokens }),
      ...(config.safetyRatio === undefined ? {} : { safetyRatio: config.safetyRatio }),
      ...(config.summaryMaxTokens === undefined ? {} : { summaryMaxTokens: config.summaryMaxTokens }),
      ...(config.overflowPatterns.length > 0 ? { overflowPatterns: config.overflowPatterns } : {}),
      adoptsHistory: true,
    });
    if (config.compressionThresholds !== undefined)
      onNotice?.({
        level: 'warning',
        text: `thresholds.compression is checked but not applied: this build's manager compresses tool outputs at its fixed bands (${COMPRESSION_BANDS.map((band) => `${band.level} ${band.from}`).join(', ')})`,
      });
    // A third of the prompt budget per tool result: the newest result is never compressed or pruned,
    // so one large file must not be able to leave the rest of the request no room.
    let session: ChatSession | undefined;
    const builtins = createBuiltinTools({
      root,
      confirm,
      outputLimit: {
        tokens: () => (session ? Math.floor(session.budget / 3) : Number.POSITIVE_INFINITY),
        model,
      },
    });
    const tools = await mcpTools(config, builtins, onNotice);
    session = new ChatSession({
      client,
      model,
      driver,
      limits,
      ...(reserveTokens === undefined ? {} : { reserve: reserveTokens }),
      ...(config.safetyRatio === undefined ? {} : { safetyRatio: config.safetyRatio }),
      tools: tools.tools,
      store,
      stream,
      ...(config.systemPrompt === undefined ? {} : { systemPrompt: config.systemPrompt }),
      ...(config.maxIterations === undefined ? {} : { maxIterations: config.maxIterations }),
      ...(config.summaryMaxTokens === undefined ? {} : { summaryMaxTokens: config.summaryMaxTokens }),
    });
    if (flags.resume !== undefined) session.resume(flags.resume);
    return {
      session,
      limits,
      reserve: {
        ...(reserveTokens === undefined ? {} : { tokens: reserveTokens }),
        reason:
          config.reserve !== undefined
            ? 'config'
            : reserveTokens === undefined && limits.outputCap !== undefined
              ? 'output cap'
              : 'default share',
      },
      baseUrl,
      format,
      store,
      close: async () => {
        await tools.close();
        store.close();
      },
    };
  } catch (error) {
    store.close();
    throw error;
  }
}
