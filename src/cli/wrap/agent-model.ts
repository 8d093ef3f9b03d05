/**
 * @module
 * The model an agent will ask for, read from where that agent takes it (its arguments first, then
 * its environment and config), so that the window it is told is the window of that model. An agent
 * whose model cannot be read is told nothing and the proxy's cuts stay the safety net.
 *
 * | agent | where | source |
 * | --- | --- | --- |
 * | Claude Code | `--model`, `ANTHROPIC_MODEL` | Claude Code docs, "Model configuration" |
 * | Codex CLI | `-m`/`--model`, `-c model=…`, `model` in `$CODEX_HOME/config.toml` | Codex `docs/config.md` |
 * | opencode | `-m`/`--model provider/model`, `model` in the inline config | opencode docs, "CLI" and "Config" |
 * | pi | `--model`, `--provider` | pi README, "CLI reference" |
 * | Gemini CLI | `-m`/`--model`, `GEMINI_MODEL` | Gemini CLI `docs/cli/configuration.md` |
 */
import { readFileSync } from 'node:fs';
import type { AgentKind } from './agent-kind.js';
import { codexConfigText, tomlText, tomlTopLevel } from './codex-config.js';

/** The value of `--name VALUE`, `--name=VALUE` or (for `short`) `-s VALUE` in `args`. */
export function flagValue(args: readonly string[], long: string, short?: string): string | undefined {
  for (let index = 0; index < args.length; index++) {
    const token = args[index] as string;
    if (token === '--') return undefined;
    if (token === `--${long}` || (short !== undefined && token === `-${short}`)) return args[index + 1];
    if (token.startsWith(`--${long}=`)) return token.slice(long.length + 3);
  }
  return undefined;
}

/** Every `-c key=value` (Codex's config overrides) in `args`, as a map. */
function codexOverrides(args: readonly string[]): Map<string, string> {
  const overrides = new Map<string, string>();
  for (let index = 0; index < args.length - 1; index++) {
    if (args[index] !== '-c' && args[index] !== '--config') continue;
    const [key, value] = (args[index + 1] as string).split(/=(.*)/s, 2);
    if (key !== undefined && value !== undefined) overrides.set(key.trim(), value.trim());
  }
  return overrides;
}

/** The provider Codex uses: `-c model_provider=…`, else `model_provider` in its config, else `openai`. */
export function codexProvider(args: readonly string[], env: NodeJS.ProcessEnv): string {
  const override = codexOverrides(args).get('model_provider');
  if (override !== undefined) return tomlText(override);
  return tomlTopLevel(codexConfigText(env), 'model_provider') ?? 'openai';
}

function opencodeModel(args: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  const given = flagValue(args, 'model', 'm');
  if (given !== undefined) return given;
  for (const text of [env.OPENCODE_CONFIG_CONTENT, readOr(env.OPENCODE_CONFIG)]) {
    try {
      const model = (JSON.parse(text ?? '') as { model?: unknown }).model;
      if (typeof model === 'string') return model;
    } catch {}
  }
  return undefined;
}

function readOr(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The model `kind` will ask for with `args` and `env`, with its provider when the agent names one
 * (`opencode -m emu/qwen` → `{ provider: 'emu', model: 'qwen' }`).
 *
 * @example
 * agentModel('codex', ['-m', 'gpt-5', 'exec', 'hi'], {}); // { model: 'gpt-5' }
 */
export function agentModel(
  kind: AgentKind,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): { model?: string; provider?: string } {
  const found = (model: string | undefined, provider?: string) => ({
    ...(model ? { model } : {}),
    ...(provider ? { provider } : {}),
  });
  switch (kind) {
    case 'claude':
      return found(flagValue(args, 'model') ?? env.ANTHROPIC_MODEL);
    case 'codex': {
      const override = codexOverrides(args).get('model');
      return found(
        flagValue(args, 'model', 'm') ??
          (override === undefined ? undefined : tomlText(override)) ??
          tomlTopLevel(codexConfigText(env), 'model'),
      );
    }
    case 'opencode': {
      const model = opencodeModel(args, env);
      const slash = model?.indexOf('/') ?? -1;
      return slash > 0 && model ? found(model.slice(slash + 1), model.slice(0, slash)) : found(model);
    }
    case 'pi':
      return found(flagValue(args, 'model'), flagValue(args, 'provider'));
    case 'gemini':
      return found(flagValue(args, 'model', 'm') ?? env.GEMINI_MODEL);
    default:
      return found(undefined);
  }
}
