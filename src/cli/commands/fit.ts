import { ContextWindowManager, readRequest, SpillwayError, writeRequest } from '../../core/index.js';
import type { Command } from '../command.js';
import { choiceFlag, EXIT_OK, integerFlag, parseJson, printJson, readInput } from '../io.js';

export const fitCommand: Command = {
  summary: 'the request fitted to the window (oldest whole turns pruned, max_tokens clamped)',
  usage: `usage: spillway fit FILE|- --context-length N [--max-tokens N] [--output-cap N]
                    [--reserve N] [--clamp auto|lower|never] [--format openai|anthropic|responses]
                    [--summary]

Fits a request to a context window: compresses old tool results under pressure (sticky levels,
oldest first), then drops the oldest whole turns until the count is within window - reserve -
3% safety, never the head (system prompt and opening user messages) or the newest turn, whose tool results
are shortened only when even then it does not fit. The count is the model's own tokenizer where
its package is installed (gpt-tokenizer for OpenAI models), else the estimate; what only the
estimate's margin calls too large is left for the provider to judge ("verdict":"uncertain"). It
sets max_tokens to the room left when the request has none and the output cap is known (always
for Anthropic Messages, which require it), and lowers one the window has no room for (--clamp lower only lowers; never leaves it).
--max-tokens replaces the request's own max_tokens; --summary leaves the request out of the output.

output: {"request":{…same format as the input…},"pruned":bool,"dropped_turns":N,"estimate":N,"budget":N,…}
exit 3 with {"error":{"code":"context_truncated",…}} on stderr when even the head and newest turn do not fit.`,
  options: {
    'context-length': { type: 'string' },
    'max-tokens': { type: 'string' },
    'output-cap': { type: 'string' },
    reserve: { type: 'string' },
    clamp: { type: 'string' },
    format: { type: 'string' },
    summary: { type: 'boolean' },
  },
  async run({ values, positionals }) {
    const contextLength = integerFlag(values['context-length'] as string | undefined, 'context-length');
    if (contextLength === undefined) {
      throw new SpillwayError(
        'invalid_argument',
        '--context-length N is required: the window to fit into, in tokens',
      );
    }
    const maxTokens = integerFlag(values['max-tokens'] as string | undefined, 'max-tokens');
    const outputCap = integerFlag(values['output-cap'] as string | undefined, 'output-cap');
    const reserve = integerFlag(values.reserve as string | undefined, 'reserve');
    const clamp = choiceFlag(values.clamp as string | undefined, 'clamp', [
      'auto',
      'lower',
      'never',
    ] as const);
    const format = choiceFlag(values.format as string | undefined, 'format', [
      'openai',
      'anthropic',
      'responses',
    ] as const);
    const text = await readInput(positionals[0], 'request');
    const request = readRequest(parseJson(text, 'the request', 'invalid_transcript'), { format });
    if (maxTokens !== undefined) {
      request.maxTokens = maxTokens;
      request.maxTokensField ??= 'max_tokens';
    }
    // The model's own tokenizer decides what the estimate alone cannot.
    const { exactCounterFor } = await import('../../tokenizers/index.js');
    const exact = await exactCounterFor(request.model);
    const manager = new ContextWindowManager({
      contextLength,
      outputCap,
      reserve,
      clamp,
      ...(exact?.exact ? { exact } : {}),
    });
    const result = manager.fit(request);
    printJson({
      ...(values.summary ? {} : { request: writeRequest(result.request) }),
      cut: result.cut.kind,
      pruned: result.pruned,
      dropped_turns: result.droppedTurns,
      compressed_tool_results: result.cut.elided,
      shortened_tool_results: result.cut.shortened,
      tokens_freed: result.cut.freed,
      estimate: result.estimate,
      count: result.countSource,
      verdict: result.verdict,
      budget: result.budget,
      window: result.window,
      reserve: result.reserve,
      max_tokens: result.request.maxTokens ?? null,
    });
    return EXIT_OK;
  },
};
