import { estimateTokens, type TokenBreakdown, tokenizerFamilyOf } from '../../core/tokens/index.js';
import { readRequest, splitTurns } from '../../core/transcript/index.js';
import type { Command } from '../command.js';
import { choiceFlag, EXIT_OK, parseJson, printJson, readInput } from '../io.js';

/** The exact count of a request, when the model's tokenizer is installed (loaded only with --exact). */
async function exactCount(
  request: ReturnType<typeof readRequest>,
  model: string | undefined,
): Promise<{ breakdown: TokenBreakdown; counter: { name: string; exact: boolean } } | undefined> {
  const { exactRequestCounter } = await import('../../tokenizers/index.js');
  const counter = await exactRequestCounter(model);
  if (!counter) return undefined;
  return {
    breakdown: counter.breakdown(request),
    counter: { name: counter.counter.name, exact: counter.counter.exact },
  };
}

export const estimateCommand: Command = {
  summary: 'token estimate of a request (OpenAI Chat, OpenAI Responses or Anthropic Messages JSON)',
  usage: `usage: spillway estimate FILE|- [--format openai|anthropic|responses] [--model ID] [--exact]

Estimates the prompt tokens of a request without a tokenizer. The format is detected unless
--format is given; --model picks the tokenizer family (default: the request's "model").
--exact counts with the model's own tokenizer and chat template costs when one is installed
(gpt-tokenizer for OpenAI models; optional packages for Qwen, DeepSeek, Gemma 3, Llama, Mistral,
Claude's legacy vocabulary) and says which counter counted: "counter":{"name":…,"exact":bool}.

output: {"tokens":N,"messages":N,"turns":N,"head_messages":N,"by_class":{"prose":N,"dense":N,"overhead":N}}`,
  options: {
    format: { type: 'string' },
    model: { type: 'string' },
    exact: { type: 'boolean' },
  },
  async run({ values, positionals }) {
    const text = await readInput(positionals[0], 'request');
    const format = choiceFlag(values.format as string | undefined, 'format', [
      'openai',
      'anthropic',
      'responses',
    ] as const);
    const request = readRequest(parseJson(text, 'the request', 'invalid_transcript'), { format });
    const model = (values.model as string | undefined) ?? request.model;
    const exact = values.exact === true ? await exactCount(request, model) : undefined;
    const estimate = exact?.breakdown ?? estimateTokens(request, { model });
    const { head, turns } = splitTurns(request.messages);
    printJson({
      tokens: estimate.total,
      messages: request.messages.length,
      turns: turns.length,
      head_messages: head.end - head.start,
      by_class: { prose: estimate.prose, dense: estimate.dense, overhead: estimate.overhead },
      ...(values.exact === true
        ? {
            counter: exact?.counter ?? {
              name: `spillway-estimator/${tokenizerFamilyOf(model)}`,
              exact: false,
            },
          }
        : {}),
    });
    return EXIT_OK;
  },
};
