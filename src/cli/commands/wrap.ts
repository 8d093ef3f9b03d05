import { SpillwayError } from '../../core/index.js';
import { DEFAULT_PROXY_PORT } from '../../proxy/index.js';
import { loadProxyConfig } from '../../proxy/proxy-config.js';
import type { Command, ParsedArgs } from '../command.js';
import { integerFlag } from '../io.js';
import { agentKindOf, defaultUpstream } from '../wrap/agent-environment.js';
import { runWrapped } from '../wrap/run-wrapped.js';

/** Flags of `spillway wrap` that take a value; they come before the agent's name. */
const VALUE_FLAGS = ['upstream', 'port', 'host', 'config', 'store', 'provider'];
const BOOLEAN_FLAGS = ['verbose', 'help'];

const USAGE = `usage: spillway wrap [--upstream URL] [--port ${DEFAULT_PROXY_PORT}] [--host 127.0.0.1] [--provider ID]
                     [--config FILE] [--store memory|sqlite[:PATH]|redis://…] [--verbose]
                     <agent> [agent arguments…]

Runs an agent with every request fitted by a Spillway proxy, changing no global config. A proxy
already listening on --port for the same upstream is reused; otherwise one is started on a free
port and stopped when the agent exits. The agent's exit code is spillway's.

  claude     ANTHROPIC_BASE_URL=<proxy>               (upstream: ANTHROPIC_BASE_URL or api.anthropic.com)
  codex      OPENAI_BASE_URL=<proxy>/v1, or -c model_providers.<ID>.base_url=… with --provider ID
  opencode   OPENCODE_CONFIG_CONTENT: provider.<ID>.options.baseURL = <proxy>/v1 (ID default openai)
  pi         PI_CODING_AGENT_DIR: a temporary copy whose models.json points provider <ID> at the proxy
  gemini     GOOGLE_GEMINI_BASE_URL=<proxy>           (Gemini's API passes through unfitted)
  other      OPENAI_BASE_URL=<proxy>/v1 and OPENAI_API_BASE=<proxy>/v1

  --upstream URL   the server the agent would talk to (default: the agent's own base-URL
                   variable, else its provider's API)
  --provider ID    the provider entry to point at the proxy (codex, opencode, pi)
  --config FILE    the proxy's config (as spillway serve --config)
  --store S        default memory
  --verbose        log every request (JSON lines on stderr)`;

/** Splits the line at the agent's name: spillway's flags before it, the agent's arguments after. */
function parseWrapArgs(argv: string[]): ParsedArgs {
  const values: ParsedArgs['values'] = {};
  for (let index = 0; index < argv.length; index++) {
    const token = argv[index] as string;
    if (token === '--') return { values, positionals: argv.slice(index + 1) };
    if (!token.startsWith('-')) return { values, positionals: argv.slice(index) };
    const [flag, inline] = token.replace(/^--?/, '').split(/=(.*)/s, 2) as [string, string | undefined];
    const name = flag === 'h' ? 'help' : flag;
    if (BOOLEAN_FLAGS.includes(name)) values[name] = true;
    else if (VALUE_FLAGS.includes(name)) {
      const value = inline ?? argv[++index];
      if (value === undefined)
        throw new SpillwayError('invalid_argument', `--${name} needs a value\n\n${USAGE}`);
      values[name] = value;
    } else
      throw new SpillwayError(
        'invalid_argument',
        `unknown option ${token} before the agent's name\n\n${USAGE}`,
      );
  }
  return { values, positionals: [] };
}

export const wrapCommand: Command = {
  summary: 'run an agent (claude, codex, opencode, pi, gemini, any OpenAI client) through a Spillway proxy',
  usage: USAGE,
  options: {},
  parse: parseWrapArgs,
  async run({ values, positionals }) {
    const [command, ...args] = positionals;
    if (command === undefined)
      throw new SpillwayError(
        'invalid_argument',
        `name the agent to run, such as: spillway wrap claude\n\n${USAGE}`,
      );
    const port = integerFlag(values.port as string | undefined, 'port', { min: 1 }) ?? DEFAULT_PROXY_PORT;
    if (port > 65_535) throw new SpillwayError('invalid_argument', `--port must be <= 65535, got ${port}`);
    const configPath = values.config as string | undefined;
    const verbose = values.verbose === true;
    return runWrapped({
      command,
      args,
      upstream: (values.upstream as string | undefined) ?? defaultUpstream(agentKindOf(command), process.env),
      port,
      host: (values.host as string | undefined) ?? '127.0.0.1',
      ...(typeof values.provider === 'string' ? { provider: values.provider } : {}),
      ...(configPath === undefined ? {} : { config: await loadProxyConfig(configPath) }),
      store: (values.store as string | undefined) ?? 'memory',
      env: process.env,
      onLog(entry) {
        if (entry.event === 'listening' || entry.event === 'apis') return;
        if (entry.level === 'info' && !verbose) return;
        process.stderr.write(`${JSON.stringify(entry)}\n`);
      },
    });
  },
};
