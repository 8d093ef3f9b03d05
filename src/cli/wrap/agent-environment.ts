/**
 * @module
 * How each agent is pointed at the proxy for one run, and told the window the server enforces,
 * without touching its global configuration: environment variables, per-process config flags, or a
 * temporary config file or directory that keeps the user's own. Each setting was checked against
 * the agent's source at the version the client suite pins (`test/real-clients/pinned-clients.json`):
 *
 * | agent | base URL | window | source |
 * | --- | --- | --- | --- |
 * | Claude Code | `ANTHROPIC_BASE_URL` (server root) | `CLAUDE_CODE_AUTO_COMPACT_WINDOW` (lowers the model's window only, floor 100,000), `CLAUDE_CODE_MAX_CONTEXT_TOKENS` (the window of a model it does not know), `CLAUDE_CODE_MAX_OUTPUT_TOKENS` | Claude Code docs, "LLM gateway configuration", "Model configuration"; the 2.1.332 binary |
 * | Codex CLI | `-c openai_base_url=…` (built-in `openai`; Codex 0.171 ignores `OPENAI_BASE_URL`), `-c model_providers.<id>.base_url=…` (others) | `-c model_context_window=…`, `-c model_auto_compact_token_limit=…` | Codex `docs/config.md`; `ConfigToml` of the 0.171.0 binary |
 * | opencode | `OPENCODE_CONFIG_CONTENT`: `provider.<id>.options.baseURL` | `provider.<id>.models.<model>.limit.{context,output}` | opencode docs, "Config" (inline config merged last), "Models" |
 * | pi | `PI_CODING_AGENT_DIR` with `models.json`: `providers.<id>.baseUrl` | `contextWindow`/`maxTokens` of the model entry, or `modelOverrides.<model>` for a built-in model | pi `docs/models.md` |
 * | Gemini CLI | `GOOGLE_GEMINI_BASE_URL` (API-key auth) | `model.compressionThreshold` in the settings of a temporary `GEMINI_CLI_HOME`, as a share of its built-in 1,048,576 | `packages/core/src/core/contentGenerator.ts`, `packages/core/src/utils/paths.ts`, `packages/cli/src/config/settingsSchema.ts` |
 * | any other | `OPENAI_BASE_URL` and `OPENAI_API_BASE` (`…/v1`) | none | the OpenAI SDKs' and LangChain's convention |
 */
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AgentKind, agentKindOf } from './agent-kind.js';
import { agentModel, codexProvider } from './agent-model.js';
import {
  type AgentWindow,
  CLAUDE_AUTO_COMPACT_MINIMUM,
  CODEX_COMPACT_SHARE,
  GEMINI_COMPRESSION_SHARE,
  geminiTokenLimit,
  OPENCODE_OUTPUT_SHARE,
  type WindowSetting,
} from './agent-window.js';
import { isRecord, merged, parsedConfig } from './json-merge.js';

export { agentKindOf, defaultUpstream, upstreamFormatOf } from './agent-kind.js';

/** What to run: the command, its arguments and environment, and what to clean up afterwards. */
export interface AgentLaunch {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Where the agent was pointed (a variable, a flag or a file), for the log. */
  route: string;
  /** The window settings the agent was given; empty when it was told none. */
  told: WindowSetting[];
  /** Why the agent was told no window, when it was not. */
  untold?: string;
  /** Removes what the launch made (a temporary config directory or file). */
  cleanup(): Promise<void>;
}

/** Options of {@link agentLaunch}. */
export interface AgentLaunchOptions {
  command: string;
  args: string[];
  /** `http://HOST:PORT` of the proxy. */
  proxyUrl: string;
  env: NodeJS.ProcessEnv;
  /** The provider entry to redirect (Codex, opencode, pi); by default the one the agent will use. */
  provider?: string;
  /** The limits of the model the agent will use, when they are known. */
  window?: AgentWindow;
  /** Why there is no `window`, for the log. */
  untold?: string;
  /** The upstream the proxy sends to (what some agents' settings depend on). */
  upstream?: string;
}

type Part = Omit<AgentLaunch, 'command' | 'args' | 'env' | 'cleanup'> & {
  env?: NodeJS.ProcessEnv;
  prefix?: string[];
  cleanup?: () => Promise<void>;
};

/** The smaller of the user's own integer setting and `value`, so a lower choice of the user's stands. */
function lowest(own: string | undefined, value: number): number {
  const parsed = own === undefined ? Number.NaN : Number(own);
  return Number.isInteger(parsed) && parsed > 0 ? Math.min(parsed, value) : value;
}

function claudePart({ proxyUrl, env, window }: AgentLaunchOptions): Part {
  const route = 'ANTHROPIC_BASE_URL';
  if (window === undefined) return { env: { ANTHROPIC_BASE_URL: proxyUrl }, route, told: [] };
  const compact = lowest(env.CLAUDE_CODE_AUTO_COMPACT_WINDOW, window.contextLength);
  const told: WindowSetting[] = [
    {
      setting: 'CLAUDE_CODE_AUTO_COMPACT_WINDOW',
      value: compact,
      note:
        compact < CLAUDE_AUTO_COMPACT_MINIMUM
          ? `Claude Code reads values under ${CLAUDE_AUTO_COMPACT_MINIMUM} as ${CLAUDE_AUTO_COMPACT_MINIMUM}; its compaction fires late and Spillway's cuts keep each request inside the window`
          : 'Claude Code takes the smaller of this and the window it knows for the model',
    },
    {
      setting: 'CLAUDE_CODE_MAX_CONTEXT_TOKENS',
      value: window.contextLength,
      note: 'the window Claude Code assumes for a model id it does not recognize',
    },
  ];
  const extra: NodeJS.ProcessEnv = {
    ANTHROPIC_BASE_URL: proxyUrl,
    CLAUDE_CODE_AUTO_COMPACT_WINDOW: String(compact),
    CLAUDE_CODE_MAX_CONTEXT_TOKENS: String(window.contextLength),
  };
  if (window.outputCap !== undefined) {
    const cap = lowest(env.CLAUDE_CODE_MAX_OUTPUT_TOKENS, window.outputCap);
    extra.CLAUDE_CODE_MAX_OUTPUT_TOKENS = String(cap);
    told.push({ setting: 'CLAUDE_CODE_MAX_OUTPUT_TOKENS', value: cap });
  }
  return { env: extra, route, told };
}

/** Whether `upstream` is OpenAI's own API (the only one that runs Codex's server-side compaction). */
function isOpenAIApi(upstream: string | undefined): boolean {
  try {
    return upstream !== undefined && new URL(upstream).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

function codexPart({ proxyUrl, args, env, provider, window, upstream }: AgentLaunchOptions): Part {
  const id = provider ?? codexProvider(args, env);
  const v1 = JSON.stringify(`${proxyUrl}/v1`);
  const route = id === 'openai' ? 'openai_base_url' : `model_providers.${id}.base_url`;
  const prefix = ['-c', `${route}=${v1}`];
  if (window === undefined) return { prefix, route: `-c ${route}`, told: [] };
  // With its built-in provider Codex 0.171 compacts on the server (the Responses API's compaction:
  // "remote compaction v2 expected exactly one compaction output item"), which only OpenAI's API
  // answers. Told a window, it would compact there; left as it is, Spillway's cuts do the work.
  if (id === 'openai' && !isOpenAIApi(upstream))
    return {
      prefix,
      route: `-c ${route}`,
      told: [],
      untold:
        "Codex's built-in provider compacts on OpenAI's servers, which this upstream cannot do; Spillway's cuts keep it inside the window (a custom provider, --provider ID, compacts by itself and is told the window)",
    };
  const compact = Math.floor(window.contextLength * CODEX_COMPACT_SHARE);
  prefix.push(
    '-c',
    `model_context_window=${window.contextLength}`,
    '-c',
    `model_auto_compact_token_limit=${compact}`,
  );
  return {
    prefix,
    route: `-c ${route}`,
    told: [
      { setting: 'model_context_window', value: window.contextLength },
      { setting: 'model_auto_compact_token_limit', value: compact },
    ],
  };
}

function opencodePart({ proxyUrl, args, env, provider, window }: AgentLaunchOptions): Part {
  const named = agentModel('opencode', args, env);
  const id = provider ?? named.provider ?? 'openai';
  const own = parsedConfig(env.OPENCODE_CONFIG_CONTENT) ?? {};
  const patch: Record<string, unknown> = { options: { baseURL: `${proxyUrl}/v1` } };
  const told: WindowSetting[] = [];
  if (window !== undefined) {
    const models = isRecord(own) && isRecord(own.provider) ? own.provider[id] : undefined;
    const ownLimit = isRecord(models) && isRecord(models.models) ? models.models[window.model] : undefined;
    const ownOutput =
      isRecord(ownLimit) && isRecord(ownLimit.limit) ? Number(ownLimit.limit.output) : Number.NaN;
    const output =
      window.outputCap ??
      (Number.isInteger(ownOutput) && ownOutput > 0
        ? ownOutput
        : Math.floor(window.contextLength * OPENCODE_OUTPUT_SHARE));
    patch.models = { [window.model]: { limit: { context: window.contextLength, output } } };
    told.push(
      { setting: 'limit.context', value: window.contextLength },
      { setting: 'limit.output', value: output },
    );
  }
  const content = merged(own, { provider: { [id]: patch } });
  return {
    env: { OPENCODE_CONFIG_CONTENT: JSON.stringify(content) },
    route: `OPENCODE_CONFIG_CONTENT provider.${id}.options.baseURL`,
    told,
  };
}

/** pi's `models.json` with provider `id` pointed at `baseUrl` and, with a window, its model told it. */
export function piModels(
  own: unknown,
  id: string,
  baseUrl: string,
  window: AgentWindow | undefined,
): { models: Record<string, unknown>; told: WindowSetting[] } {
  const models = merged(own, { providers: { [id]: { baseUrl } } });
  if (window === undefined) return { models, told: [] };
  const entry = (models.providers as Record<string, Record<string, unknown>>)[id] as Record<string, unknown>;
  const limits: Record<string, number> = {
    contextWindow: window.contextLength,
    ...(window.outputCap === undefined ? {} : { maxTokens: window.outputCap }),
  };
  const list = Array.isArray(entry.models) ? entry.models : [];
  const listed = list.some((model) => isRecord(model) && model.id === window.model);
  if (listed)
    entry.models = list.map((model) =>
      isRecord(model) && model.id === window.model ? { ...model, ...limits } : model,
    );
  else entry.modelOverrides = merged(entry.modelOverrides, { [window.model]: limits });
  const told = Object.entries(limits).map(([setting, value]) => ({ setting, value }));
  return { models, told };
}

/**
 * A temporary pi agent directory: every entry of the user's own linked in, and `models.json` with
 * provider `id` pointed at the proxy (the user's models kept).
 */
async function piPart({ proxyUrl, args, env, provider, window }: AgentLaunchOptions): Promise<Part> {
  const id = provider ?? agentModel('pi', args, env).provider ?? 'openai';
  const own = env.PI_CODING_AGENT_DIR ?? join(env.HOME ?? homedir(), '.pi', 'agent');
  const directory = await mkdtemp(join(tmpdir(), 'spillway-pi-'));
  const entries = await readdir(own).catch(() => [] as string[]);
  for (const entry of entries)
    if (entry !== 'models.json') await symlink(join(own, entry), join(directory, entry));
  const text = await readFile(join(own, 'models.json'), 'utf8').catch(() => undefined);
  const baseUrl = id === 'anthropic' ? proxyUrl : `${proxyUrl}/v1`;
  const { models, told } = piModels(parsedConfig(text) ?? {}, id, baseUrl, window);
  await writeFile(join(directory, 'models.json'), JSON.stringify(models, null, 2));
  return {
    env: { PI_CODING_AGENT_DIR: directory },
    route: `PI_CODING_AGENT_DIR models.json providers.${id}.baseUrl`,
    told,
    cleanup: () => rm(directory, { recursive: true, force: true }),
  };
}

/**
 * Gemini CLI: the base URL, and a temporary home (`GEMINI_CLI_HOME`) whose `.gemini` links every
 * entry of the user's own and holds their `settings.json` with, given a window,
 * `model.compressionThreshold` at half the real window (a share of Gemini CLI's built-in window, so
 * it can only lower it), and, when the user chose no auth method but has `GEMINI_API_KEY`,
 * `security.auth.selectedType: "gemini-api-key"`: with `GOOGLE_GEMINI_BASE_URL` set and no choice
 * made, Gemini CLI 0.61 takes the `gateway` method, which its non-interactive mode refuses
 * ("Invalid auth method selected."). System settings cannot carry either: Gemini CLI reads them
 * only from a root-owned path.
 */
async function geminiPart({ proxyUrl, env, window }: AgentLaunchOptions): Promise<Part> {
  const base: Part = { env: { GOOGLE_GEMINI_BASE_URL: proxyUrl }, route: 'GOOGLE_GEMINI_BASE_URL', told: [] };
  const ownHome = env.GEMINI_CLI_HOME ?? env.HOME ?? homedir();
  const own = join(ownHome, '.gemini');
  const settings = parsedConfig(await readFile(join(own, 'settings.json'), 'utf8').catch(() => undefined));
  if (settings === undefined)
    return {
      ...base,
      untold: `its settings ${join(own, 'settings.json')} are not plain JSON; left as they are`,
    };
  const patch: Record<string, unknown> = {};
  const told: WindowSetting[] = [];
  if (window !== undefined) {
    const builtIn = geminiTokenLimit(window.model);
    const threshold = Math.min(1, (GEMINI_COMPRESSION_SHARE * window.contextLength) / builtIn);
    patch.model = { compressionThreshold: threshold };
    told.push({
      setting: 'model.compressionThreshold',
      value: threshold,
      note: `a share of Gemini CLI's built-in ${builtIn}-token window: it compresses at ${Math.round(threshold * builtIn)} tokens; its own overflow check still assumes ${builtIn}`,
    });
  }
  const chosen =
    isRecord(settings) && isRecord(settings.security) && isRecord(settings.security.auth)
      ? settings.security.auth.selectedType
      : undefined;
  if (chosen === undefined && env.GEMINI_API_KEY)
    patch.security = { auth: { selectedType: 'gemini-api-key' } };
  if (Object.keys(patch).length === 0) return base;
  const home = await mkdtemp(join(tmpdir(), 'spillway-gemini-'));
  const directory = join(home, '.gemini');
  await mkdir(directory);
  for (const entry of await readdir(own).catch(() => [] as string[]))
    if (entry !== 'settings.json') await symlink(join(own, entry), join(directory, entry));
  await writeFile(join(directory, 'settings.json'), JSON.stringify(merged(settings, patch), null, 2));
  return {
    env: { GOOGLE_GEMINI_BASE_URL: proxyUrl, GEMINI_CLI_HOME: home },
    route: base.route,
    told,
    cleanup: () => rm(home, { recursive: true, force: true }),
  };
}

function otherPart({ proxyUrl }: AgentLaunchOptions): Part {
  const v1 = `${proxyUrl}/v1`;
  return {
    env: { OPENAI_BASE_URL: v1, OPENAI_API_BASE: v1 },
    route: 'OPENAI_BASE_URL',
    told: [],
    untold: 'an agent spillway wrap does not know has no window setting it can set',
  };
}

const PARTS: Record<AgentKind, (options: AgentLaunchOptions) => Part | Promise<Part>> = {
  claude: claudePart,
  codex: codexPart,
  opencode: opencodePart,
  pi: piPart,
  gemini: geminiPart,
  openai: otherPart,
};

/**
 * The launch of `command args…` pointed at the proxy at `proxyUrl` (`http://HOST:PORT`) and, with
 * `window`, told the window in the agent's own setting.
 *
 * @example
 * const launch = await agentLaunch({ command: 'claude', args: ['-p', 'hi'], proxyUrl, env: process.env });
 * // launch.env.ANTHROPIC_BASE_URL === proxyUrl
 */
export async function agentLaunch(options: AgentLaunchOptions): Promise<AgentLaunch> {
  const kind = agentKindOf(options.command);
  const part = await PARTS[kind](options);
  const untold = part.untold ?? (options.window === undefined ? options.untold : undefined);
  return {
    command: options.command,
    args: [...(part.prefix ?? []), ...options.args],
    env: { ...options.env, ...part.env },
    route: part.route,
    told: part.told,
    ...(untold === undefined || part.told.length > 0 ? {} : { untold }),
    cleanup: part.cleanup ?? (async () => undefined),
  };
}
