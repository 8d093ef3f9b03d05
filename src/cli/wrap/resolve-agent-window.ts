/**
 * @module
 * The window to tell an agent before launch: the limits the proxy would resolve for the model the
 * agent will use (its config, discovery of the upstream, the catalog), in the one resolution order
 * of `resolveUpstreamLimits`. A window nothing states (the fallback) is never told.
 */
import { DiscoveryCache } from '../../models/index.js';
import { type ProxyLogEntry, resolveUpstreamLimits } from '../../proxy/index.js';
import { type ProxyConfig, proxyModelSettings } from '../../proxy/proxy-config.js';
import { type AgentKind, upstreamFormatOf } from './agent-kind.js';
import { agentModel } from './agent-model.js';
import type { AgentWindow } from './agent-window.js';

/** How long the Gemini Models API has to answer. */
const MODELS_API_TIMEOUT_MS = 3_000;

/**
 * A Gemini model's limits from the Gemini API's own Models API (`GET /v1beta/models/{model}`:
 * `inputTokenLimit`, `outputTokenLimit`), asked with the key the agent will use.
 */
async function geminiModelLimits(
  upstream: string,
  model: string,
  env: NodeJS.ProcessEnv,
): Promise<AgentWindow | undefined> {
  const key = env.GEMINI_API_KEY ?? env.GOOGLE_API_KEY;
  try {
    const response = await fetch(
      `${upstream.replace(/\/+$/, '')}/v1beta/models/${encodeURIComponent(model)}`,
      {
        headers: key ? { 'x-goog-api-key': key } : {},
        signal: AbortSignal.timeout(MODELS_API_TIMEOUT_MS),
      },
    );
    if (!response.ok) return undefined;
    const info = (await response.json()) as { inputTokenLimit?: unknown; outputTokenLimit?: unknown };
    if (typeof info.inputTokenLimit !== 'number' || info.inputTokenLimit <= 0) return undefined;
    return {
      model,
      contextLength: info.inputTokenLimit,
      ...(typeof info.outputTokenLimit === 'number' ? { outputCap: info.outputTokenLimit } : {}),
      source: 'discovered:gemini-models-api',
    };
  } catch {
    return undefined;
  }
}

/** The window to tell the agent, or why there is none. */
export type ResolvedAgentWindow = { window: AgentWindow } | { untold: string };

/**
 * Resolves the limits of the model `kind` will ask for at `upstream`.
 *
 * @example
 * const resolved = await resolveAgentWindow({ kind: 'pi', args: ['--model', 'qwen'], env, upstream });
 * // { window: { model: 'qwen', contextLength: 24000, outputCap: 24000, source: 'discovered:vllm' } }
 */
export async function resolveAgentWindow({
  kind,
  args,
  env,
  upstream,
  provider,
  config,
  log,
}: {
  kind: AgentKind;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  upstream: string;
  provider?: string;
  config?: ProxyConfig;
  log?: (entry: ProxyLogEntry) => void;
}): Promise<ResolvedAgentWindow> {
  if (kind === 'openai') return { untold: 'spillway wrap knows no window setting of this agent' };
  const { model } = agentModel(kind, args, env);
  if (model === undefined)
    return { untold: 'the model it will use is not named; name it with the agent’s own --model' };
  if (kind === 'gemini') {
    const found = await geminiModelLimits(upstream, model, env);
    if (found) return { window: found };
  }
  const anthropic = upstreamFormatOf(kind, provider) === 'anthropic';
  const limits = await resolveUpstreamLimits({
    model,
    baseUrl: upstream,
    ...(anthropic ? { provider: 'anthropic' } : {}),
    settings: proxyModelSettings({ config, model }),
    learned: {},
    cache: new DiscoveryCache(),
    probe: config?.probeLimits !== false,
    ...(log ? { log } : {}),
  });
  if (limits.source.contextLength === 'fallback')
    return {
      untold: `nothing states the window of ${model} at the upstream; give it with --config (context_length)`,
    };
  return {
    window: {
      model,
      contextLength: limits.contextLength,
      ...(limits.outputCap === undefined ? {} : { outputCap: limits.outputCap }),
      source: limits.source.contextLength,
    },
  };
}
