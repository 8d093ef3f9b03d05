/**
 * @module
 * `spillway wrap --check <agent>`: the agent's cheapest call (a one-word prompt, one turn, no
 * session kept) made through the run's proxy, and a report of whether it arrived, where the agent
 * was pointed, and the window it was told.
 */
import type { AgentLaunch } from './agent-environment.js';
import type { AgentKind } from './agent-kind.js';
import type { WindowSetting } from './agent-window.js';

/** The prompt of the check. */
export const CHECK_PROMPT = 'Reply with the single word: ok';
/** The longest a check's agent may run before it is stopped. */
export const CHECK_TIMEOUT_MS = 120_000;

/**
 * The agent's cheapest call with the user's own arguments (its model, its provider) kept: for
 * Claude Code, Codex, opencode, pi and Gemini CLI their one-shot mode on {@link CHECK_PROMPT};
 * any other agent runs the arguments it was given.
 *
 * @example
 * checkArgs('codex', ['-m', 'gpt-5']); // ['-m', 'gpt-5', 'exec', '--skip-git-repo-check', 'Reply with the single word: ok']
 */
export function checkArgs(kind: AgentKind, args: readonly string[]): string[] {
  switch (kind) {
    case 'claude':
      return [...args, '-p', CHECK_PROMPT, '--max-turns', '1'];
    case 'codex':
      return [...args, 'exec', '--skip-git-repo-check', CHECK_PROMPT];
    case 'opencode':
      return ['run', ...args, CHECK_PROMPT];
    case 'pi':
      return [...args, '-p', '--no-session', CHECK_PROMPT];
    case 'gemini':
      return [...args, '-p', CHECK_PROMPT];
    default:
      return [...args];
  }
}

/** What `--check` prints. */
export interface CheckReport {
  agent: AgentKind;
  /** Whether a request of the agent reached the proxy. */
  arrived: boolean;
  proxy: string;
  /** Where the agent was pointed. */
  route: string;
  /** The requests that arrived (method and path), the first few. */
  requests: string[];
  told: WindowSetting[];
  untold?: string;
  exit_code: number;
}

/** The check's report. */
export function checkReport({
  kind,
  proxy,
  launch,
  arrived,
  arrivals,
  exitCode,
}: {
  kind: AgentKind;
  proxy: string;
  launch: AgentLaunch;
  arrived: number;
  arrivals: { method: string; pathname: string }[];
  exitCode: number;
}): CheckReport {
  return {
    agent: kind,
    arrived: arrived > 0,
    proxy,
    route: launch.route,
    requests: arrivals.map(({ method, pathname }) => `${method} ${pathname}`),
    told: launch.told,
    ...(launch.untold === undefined ? {} : { untold: launch.untold }),
    exit_code: exitCode,
  };
}
