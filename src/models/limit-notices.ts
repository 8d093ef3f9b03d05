/**
 * @module
 * What resolving a model's limits should tell the user, once: a figure that overrode a weaker
 * source which said otherwise (a gateway's claim the server contradicted, a config value a server
 * corrected), and an Ollama model served with less window than it was trained on, with the fix.
 */
import type { DiscoveredLimits } from './discovery-probe.js';
import { describeLimitSource, type LimitFigure, limitSourceKind } from './limit-source.js';

/** The two figures resolution decides. */
export type LimitName = 'context_length' | 'output_cap';

/** Something the user should be told about the limits in force. */
export type LimitNotice =
  | {
      kind: 'limit_overridden';
      figure: LimitName;
      /** The figure in force and its source. */
      value: number;
      source: LimitFigure['source'];
      /** Weaker sources that said something else. */
      overridden: LimitFigure[];
      message: string;
    }
  | {
      kind: 'ollama_context_below_trained';
      model: string;
      /** The window Ollama serves the model with. */
      contextLength: number;
      /** The window the model was trained on. */
      trainedContextLength: number;
      endpoint: string;
      message: string;
    };

const count = (value: number): string => value.toLocaleString('en-US');
const words = { context_length: 'window', output_cap: 'output cap' } as const;

/**
 * A `limit_overridden` notice when a weaker source states another value than the one in force.
 *
 * @example
 * overrideNotice('context_length', [{ value: 21_000, source: 'probed' }, { value: 9_600, source: 'claimed:/model/info' }]);
 * // { kind: 'limit_overridden', figure: 'context_length', value: 21000, source: 'probed', overridden: [ … 9600 … ], message: 'window 21,000 (…) instead of 9,600 (…)' }
 */
export function overrideNotice(figure: LimitName, figures: readonly LimitFigure[]): LimitNotice | undefined {
  const [chosen, ...weaker] = figures;
  if (chosen === undefined) return undefined;
  const overridden = weaker.filter((other) => other.value !== chosen.value);
  if (overridden.length === 0) return undefined;
  const instead = overridden.map((other) => `${count(other.value)} (${describeLimitSource(other.source)})`);
  const hint = overridden.some((other) => limitSourceKind(other.source) === 'config')
    ? '; mark the configured value as a hard limit to use it anyway'
    : '';
  return {
    kind: 'limit_overridden',
    figure,
    value: chosen.value,
    source: chosen.source,
    overridden,
    message: `${words[figure]} ${count(chosen.value)} (${describeLimitSource(chosen.source)}) instead of ${instead.join(', ')}${hint}`,
  };
}

/**
 * An `ollama_context_below_trained` notice when Ollama serves the model with a smaller window than
 * it was trained on, with the fixes Ollama documents: `num_ctx` in a Modelfile (docs/modelfile.mdx;
 * the only way through the OpenAI-compatible endpoint, docs/api/openai-compatibility.mdx "Setting
 * the context size"), or `OLLAMA_CONTEXT_LENGTH` for the server (docs/faq.mdx).
 */
export function ollamaNotice(found: DiscoveredLimits | undefined, model: string): LimitNotice | undefined {
  if (found?.server !== 'ollama') return undefined;
  const { contextLength, trainedContextLength } = found;
  if (contextLength === undefined || trainedContextLength === undefined) return undefined;
  if (contextLength >= trainedContextLength) return undefined;
  const served = found.defaultAssumed
    ? `is not loaded and sets no num_ctx, so Ollama's default (at least ${count(contextLength)}) applies`
    : `is served with ${count(contextLength)} tokens (${found.endpoint})`;
  return {
    kind: 'ollama_context_below_trained',
    model,
    contextLength,
    trainedContextLength,
    endpoint: found.endpoint,
    message: `Ollama: ${model} ${served}, though it was trained on ${count(trainedContextLength)}; for more, set "ollama_num_ctx": ${trainedContextLength} in the chat config (it creates a model with PARAMETER num_ctx), or start the server with OLLAMA_CONTEXT_LENGTH=${trainedContextLength}`,
  };
}
