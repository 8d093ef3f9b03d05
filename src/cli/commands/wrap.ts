import { SpillwayError } from '../../core/index.js';
import { loadProxyConfig } from '../../proxy/proxy-config.js';
import type { Command, ParsedArgs } from '../command.js';
import { integerFlag, printJson } from '../io.js';
import { agentKindOf, defaultUpstream } from '../wrap/agent-environment.js';
import { runWrapped } from '../wrap/run-wrapped.js';
import { defaultSecretPath } from '../wrap/shared-secret.js';

/** Flags of `spillway wrap` that take a value; they come before the agent's name. */
const VALUE_FLAGS = ['upstream', 'port', 'host', 'config', 'store', 'provider', 'secret-file'];
const BOOLEAN_FLAGS = ['verbose', 'help', 'check'];

const USAGE = `usage: spillway wrap [--upstream URL] [--port N] [--host 127.0.0.1] [--provider ID]
                     [--config FILE] [--store memory|sqlite[:PATH]|redis://…] [--secret-file FILE]
                     [--check] [--verbose] <agent> [agent arguments…]

Runs an agent with every request fitted by a Spillway proxy of its own (a free port, a secret of
this run), changing no global config, and tells the agent the window the server enforces in its
own setting. The agent's exit code is spillway's. A wrapped agent whose requests do not reach the
proxy (it connects to the upstream itself, or off the machine with no request at the proxy) is
reported on stderr as it happens.

  claude     ANTHROPIC_BASE_URL; CLAUDE_CODE_AUTO_COMPACT_WINDOW (only lowers the model's window,
             read as at least 100000), CLAUDE_CODE_MAX_CONTEXT_TOKENS, CLAUDE_CODE_MAX_OUTPUT_TOKENS
  codex      -c openai_base_url=<proxy>/v1 (built-in provider), or -c model_providers.<ID>.base_url;
             -c model_context_window, -c model_auto_compact_token_limit
  opencode   OPENCODE_CONFIG_CONTENT: provider.<ID>.options.baseURL, models.<M>.limit.context/output
  pi         PI_CODING_AGENT_DIR: a temporary copy whose models.json points provider <ID> at the
             proxy and gives the model contextWindow/maxTokens (modelOverrides for a built-in one)
  gemini     GOOGLE_GEMINI_BASE_URL; model.compressionThreshold in the settings of a temporary
             GEMINI_CLI_HOME (a share of Gemini CLI's built-in window: it can only lower it)
  other      OPENAI_BASE_URL=<proxy>/v1 and OPENAI_API_BASE=<proxy>/v1

  --upstream URL     the server the agent would talk to (default: the agent's own base-URL
                     variable, else its provider's API)
  --provider ID      the provider entry to point at the proxy (codex, opencode, pi; default the
                     one the agent's config or --model names)
  --port N           reuse the proxy on port N if it proves it holds the shared secret (HMAC of
                     a challenge; nothing else is sent to an unproven listener); otherwise start
                     one of this run's own
  --secret-file F    the shared secret (default ~/.config/spillway/proxy-secret, owner-only;
                     spillway serve --secret-file F makes a proxy wrap can reuse)
  --check            make the agent's cheapest call (a one-word prompt) through the proxy and
                     print whether it arrived, as JSON; exit 1 when it did not
  --config FILE      the proxy's config (as spillway serve --config)
  --store S          default memory
  --verbose          log every request (JSON lines on stderr)`;

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
    const port = integerFlag(values.port as string | undefined, 'port', { min: 1 });
    if (port !== undefined && port > 65_535)
      throw new SpillwayError('invalid_argument', `--port must be <= 65535, got ${port}`);
    const configPath = values.config as string | undefined;
    const verbose = values.verbose === true;
    return runWrapped({
      command,
      args,
      upstream: (values.upstream as string | undefined) ?? defaultUpstream(agentKindOf(command), process.env),
      host: (values.host as string | undefined) ?? '127.0.0.1',
      ...(port === undefined ? {} : { reusePort: port }),
      secretFile: (values['secret-file'] as string | undefined) ?? defaultSecretPath(process.env),
      ...(typeof values.provider === 'string' ? { provider: values.provider } : {}),
      ...(configPath === undefined ? {} : { config: await loadProxyConfig(configPath) }),
      store: (values.store as string | undefined) ?? 'memory',
      env: process.env,
      check: values.check === true,
      onLog(entry) {
        if (entry.event === 'listening' || entry.event === 'apis') return;
        if (entry.level === 'info' && !verbose && entry.event !== 'wrap') return;
        process.stderr.write(`${JSON.stringify(entry)}\n`);
      },
      say(line) {
        process.stderr.write(`${line}\n`);
      },
      onCheck(report) {
        printJson(report);
      },
    });
  },
};
