import { SpillwayError } from '../../core/index.js';
import {
  genericAgentScript,
  PROFILE_NAMES,
  parseFaults,
  parseScript,
  startEmulator,
} from '../../emulator/index.js';
import type { Command } from '../command.js';
import { choiceFlag, EXIT_OK, integerFlag, parseJson, readInput, untilStopped } from '../io.js';

function scaleFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const scale = Number(value);
  if (!Number.isFinite(scale) || scale <= 0)
    throw new SpillwayError('invalid_argument', `--scale must be a number > 0, got ${JSON.stringify(value)}`);
  return scale;
}

export const emulateCommand: Command = {
  summary: "run a backend emulator: a real server's limits, overflow errors and a scripted model on loopback",
  usage: `usage: spillway emulate --profile P --port N [--host H] [--context-length N] [--output-cap N]
                        [--scale F] [--model ID] [--wording W] [--seed N] [--script FILE] [--faults FILE]

Runs an HTTP server that behaves like a real inference server: it counts prompt tokens with a real
tokenizer through the Qwen 2.5 chat template, enforces the window and output cap, and rejects
requests with the error bodies the real server sends. Replies come from a scripted model (by
default a coding agent that calls read_file, search and run; requests from spillway chat get a
script that lists the project, reads a file it saw, searches for a word of the prompt and answers;
requests that offer a real client's shell tool (Claude Code, Codex, opencode, pi, Gemini CLI) get
the generic agent, which reads the files the prompt names and writes their line counts).
Serves POST /v1/responses (openai, vllm, litellm-vllm) and the counting endpoints of the servers
it models: POST /v1/responses/input_tokens (openai), POST /v1/messages/count_tokens (anthropic),
POST /tokenize (vllm; llamacpp with POST /apply-template).

profiles: ${PROFILE_NAMES.join(', ')}
  --context-length N   the enforced window (max_model_len, n_ctx, num_ctx…)
  --output-cap N       the output cap (OpenAI/Anthropic reject above it, others clamp)
  --scale F            litellm-vllm: scale the advertised 96,000/96,000 and enforced 210,000
  --wording W          vllm, litellm-vllm: v0, v1, v2, v3 (default), sglang; llamacpp: v1, v2 (default), v3
  --script FILE        scripted replies (JSON), or "generic": the agent that drives real clients
                       with the shell and read tools they offer; --faults FILE fault rules (JSON); --seed N

Prints "listening on http://HOST:PORT" when ready; stops cleanly on SIGINT or SIGTERM.`,
  options: {
    profile: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    'context-length': { type: 'string' },
    'output-cap': { type: 'string' },
    scale: { type: 'string' },
    model: { type: 'string' },
    wording: { type: 'string' },
    seed: { type: 'string' },
    script: { type: 'string' },
    faults: { type: 'string' },
  },
  async run({ values }) {
    const profile = choiceFlag(values.profile as string | undefined, 'profile', PROFILE_NAMES);
    if (profile === undefined)
      throw new SpillwayError(
        'invalid_argument',
        `--profile P is required: one of ${PROFILE_NAMES.join(', ')}`,
      );
    const scriptPath = values.script as string | undefined;
    const faultsPath = values.faults as string | undefined;
    const emulator = await startEmulator({
      profile,
      port: integerFlag(values.port as string | undefined, 'port', { min: 0 }) ?? 0,
      host: (values.host as string | undefined) ?? '127.0.0.1',
      contextLength: integerFlag(values['context-length'] as string | undefined, 'context-length'),
      outputCap: integerFlag(values['output-cap'] as string | undefined, 'output-cap'),
      scale: scaleFlag(values.scale as string | undefined),
      model: values.model as string | undefined,
      wording: values.wording as string | undefined,
      seed: integerFlag(values.seed as string | undefined, 'seed', { min: 0 }),
      script:
        scriptPath === undefined
          ? undefined
          : scriptPath === 'generic'
            ? genericAgentScript()
            : parseScript(parseJson(await readInput(scriptPath, 'script'), 'the script')),
      faults:
        faultsPath === undefined
          ? undefined
          : parseFaults(parseJson(await readInput(faultsPath, 'faults'), 'the faults')),
    });
    process.stdout.write(`listening on ${emulator.url}\n`);
    await untilStopped();
    await emulator.close();
    return EXIT_OK;
  },
};
