/**
 * @module
 * How each agent is pointed at the proxy for one run, without touching its global configuration:
 * environment variables, per-process config flags, or a temporary config directory that links to
 * the user's own. Where each agent reads its base URL:
 *
 * | agent | setting | source |
 * | --- | --- | --- |
 * | Claude Code | `ANTHROPIC_BASE_URL` (the server root) | Claude Code docs, "LLM gateway configuration" |
 * | Codex CLI | `OPENAI_BASE_URL` for the built-in `openai` provider; `-c model_providers.<id>.base_url=…` for others | `codex-rs/core/src/model_provider_info.rs`; Codex `docs/config.md` (`-c key=value`) |
 * | opencode | `OPENCODE_CONFIG_CONTENT`, inline JSON merged over every config file: `provider.<id>.options.baseURL` | opencode docs, "Config" (precedence: inline config last) |
 * | pi | `PI_CODING_AGENT_DIR` with a `models.json` whose `providers.<id>.baseUrl` overrides the provider | pi `docs/models.md` ("Overriding Built-in Providers") and README (`PI_CODING_AGENT_DIR`) |
 * | Gemini CLI | `GOOGLE_GEMINI_BASE_URL` | `@google/genai` base URL override, as Gemini CLI passes it |
 * | any other | `OPENAI_BASE_URL` and `OPENAI_API_BASE` (`…/v1`) | the OpenAI SDKs' and LangChain's convention |
 */
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

/** The agents `spillway wrap` knows by name; anything else is treated as an OpenAI-compatible client. */
export type AgentKind = 'claude' | 'codex' | 'opencode' | 'pi' | 'gemini' | 'openai';

/** What to run: the command, its arguments and environment, and what to clean up afterwards. */
export interface AgentLaunch {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Removes what the launch made (a temporary config directory). */
  cleanup(): Promise<void>;
}

/** The kind of agent a command is, from its file name. */
export function agentKindOf(command: string): AgentKind {
  const name = basename(command).replace(/\.(?:exe|cmd|js|mjs|cjs)$/, '');
  if (name === 'claude') return 'claude';
  if (name === 'codex') return 'codex';
  if (name === 'opencode') return 'opencode';
  if (name === 'pi') return 'pi';
  if (name === 'gemini') return 'gemini';
  return 'openai';
}

/** The upstream an agent talks to when it is not wrapped: its own base-URL setting, else its provider's API. */
export function defaultUpstream(kind: AgentKind, env: NodeJS.ProcessEnv): string {
  if (kind === 'claude') return env.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com';
  if (kind === 'gemini') return env.GOOGLE_GEMINI_BASE_URL ?? 'https://generativelanguage.googleapis.com';
  return env.OPENAI_BASE_URL ?? env.OPENAI_API_BASE ?? 'https://api.openai.com';
}

/** The wire format the agent speaks to its upstream by default (for the proxy's limits). */
export function upstreamFormatOf(kind: AgentKind, provider: string | undefined): 'openai' | 'anthropic' {
  return kind === 'claude' || provider === 'anthropic' ? 'anthropic' : 'openai';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `target` with `patch` merged in, objects key by key. */
function merged(target: unknown, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch))
    out[key] = isRecord(value) ? merged(out[key], value) : value;
  return out;
}

function parsedOr(text: string | undefined): unknown {
  if (text === undefined) return {};
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

/**
 * A temporary pi agent directory: every entry of the user's own linked in, and `models.json` with
 * `providers.<id>.baseUrl` pointing at the proxy (the user's models kept).
 */
async function piAgentDirectory(env: NodeJS.ProcessEnv, provider: string, baseUrl: string): Promise<string> {
  const own = env.PI_CODING_AGENT_DIR ?? join(env.HOME ?? tmpdir(), '.pi', 'agent');
  const directory = await mkdtemp(join(tmpdir(), 'spillway-pi-'));
  const entries = await readdir(own).catch(() => [] as string[]);
  for (const entry of entries)
    if (entry !== 'models.json') await symlink(join(own, entry), join(directory, entry));
  const models = parsedOr(await readFile(join(own, 'models.json'), 'utf8').catch(() => undefined));
  const patched = merged(models, { providers: { [provider]: { baseUrl } } });
  await writeFile(join(directory, 'models.json'), JSON.stringify(patched, null, 2));
  return directory;
}

/**
 * The launch of `command args…` pointed at the proxy at `proxyUrl` (`http://HOST:PORT`).
 * `provider` names the provider entry to redirect for Codex, opencode and pi (default `openai`).
 *
 * @example
 * const launch = await agentLaunch({ command: 'claude', args: ['-p', 'hi'], proxyUrl, env: process.env });
 * // launch.env.ANTHROPIC_BASE_URL === proxyUrl
 */
export async function agentLaunch({
  command,
  args,
  proxyUrl,
  env,
  provider,
}: {
  command: string;
  args: string[];
  proxyUrl: string;
  env: NodeJS.ProcessEnv;
  provider?: string;
}): Promise<AgentLaunch> {
  const kind = agentKindOf(command);
  const v1 = `${proxyUrl}/v1`;
  const nothing = async (): Promise<void> => undefined;
  const launch = (extra: NodeJS.ProcessEnv, prefix: string[] = [], cleanup = nothing): AgentLaunch => ({
    command,
    args: [...prefix, ...args],
    env: { ...env, ...extra },
    cleanup,
  });
  switch (kind) {
    case 'claude':
      return launch({ ANTHROPIC_BASE_URL: proxyUrl });
    case 'gemini':
      return launch({ GOOGLE_GEMINI_BASE_URL: proxyUrl });
    case 'codex':
      return provider === undefined || provider === 'openai'
        ? launch({ OPENAI_BASE_URL: v1 })
        : launch({}, ['-c', `model_providers.${provider}.base_url=${JSON.stringify(v1)}`]);
    case 'opencode': {
      const id = provider ?? 'openai';
      const content = merged(parsedOr(env.OPENCODE_CONFIG_CONTENT), {
        provider: { [id]: { options: { baseURL: v1 } } },
      });
      return launch({ OPENCODE_CONFIG_CONTENT: JSON.stringify(content) });
    }
    case 'pi': {
      const id = provider ?? 'openai';
      const directory = await piAgentDirectory(env, id, id === 'anthropic' ? proxyUrl : v1);
      return launch({ PI_CODING_AGENT_DIR: directory }, [], () =>
        rm(directory, { recursive: true, force: true }),
      );
    }
    default:
      return launch({ OPENAI_BASE_URL: v1, OPENAI_API_BASE: v1 });
  }
}
