/**
 * @module
 * The agents `spillway wrap` knows by name, the upstream each talks to when it is not wrapped, and
 * the wire format it speaks there.
 */
import { basename } from 'node:path';
import { codexConfigText, tomlTopLevel } from './codex-config.js';

/** The agents `spillway wrap` knows by name; anything else is treated as an OpenAI-compatible client. */
export type AgentKind = 'claude' | 'codex' | 'opencode' | 'pi' | 'gemini' | 'openai';

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

/**
 * The upstream an agent talks to when it is not wrapped: its own base-URL setting (for Codex,
 * `openai_base_url` in its config too), else its provider's API.
 */
export function defaultUpstream(kind: AgentKind, env: NodeJS.ProcessEnv): string {
  if (kind === 'claude') return env.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com';
  if (kind === 'gemini') return env.GOOGLE_GEMINI_BASE_URL ?? 'https://generativelanguage.googleapis.com';
  if (kind === 'codex')
    return (
      tomlTopLevel(codexConfigText(env), 'openai_base_url') ?? env.OPENAI_BASE_URL ?? 'https://api.openai.com'
    );
  return env.OPENAI_BASE_URL ?? env.OPENAI_API_BASE ?? 'https://api.openai.com';
}

/** The wire format the agent speaks to its upstream by default (for the proxy's limits). */
export function upstreamFormatOf(kind: AgentKind, provider: string | undefined): 'openai' | 'anthropic' {
  return kind === 'claude' || provider === 'anthropic' ? 'anthropic' : 'openai';
}
