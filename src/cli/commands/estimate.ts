import { estimateTokens, readRequest, splitTurns } from '../../core/index.js';
import type { Command } from '../command.js';
import { choiceFlag, EXIT_OK, parseJson, printJson, readInput } from '../io.js';

export const estimateCommand: Command = {
  summary: 'token estimate of a request (OpenAI Chat, OpenAI Responses or Anthropic Messages JSON)',
  usage: `usage: spillway estimate FILE|- [--format openai|anthropic|responses] [--model ID]

Estimates the prompt tokens of a request without a tokenizer. The format is detected unless
--format is given; --model picks the tokenizer family (default: the request's "model").

output: {"tokens":N,"messages":N,"turns":N,"head_messages":N,"by_class":{"prose":N,"dense":N,"overhead":N}}`,
  options: {
    format: { type: 'string' },
    model: { type: 'string' },
  },
  async run({ values, positionals }) {
    const text = await readInput(positionals[0], 'request');
    const format = choiceFlag(values.format as string | undefined, 'format', [
      'openai',
      'anthropic',
      'responses',
    ] as const);
    const request = readRequest(parseJson(text, 'the request', 'invalid_transcript'), { format });
    const estimate = estimateTokens(request, {
      model: (values.model as string | undefined) ?? request.model,
    });
    const { head, turns } = splitTurns(request.messages);
    printJson({
      tokens: estimate.total,
      messages: request.messages.length,
      turns: turns.length,
      head_messages: head.end - head.start,
      by_class: { prose: estimate.prose, dense: estimate.dense, overhead: estimate.overhead },
    });
    return EXIT_OK;
  },
};
