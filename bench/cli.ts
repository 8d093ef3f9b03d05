/**
 * What the README's command examples print: `spillway estimate` and `spillway fit` on the bundled
 * example, `spillway classify` on one error body and on examples/errors.jsonl (three real bodies
 * from the overflow corpus: anthropic-prompt-too-long-03, anthropic-rate-limit-itpm-02,
 * llamacpp-ctx-02), and `spillway demo` (text and `--json`, and against the `ollama` profile), each
 * run as a process from the sources.
 * Also the emulators' real count of the bundled example, to set beside the estimate.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { countPromptTokens } from '../src/emulator/index.js';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('..', import.meta.url));

/** The body of the README's single-body `classify` example (a LiteLLM-wrapped Anthropic overflow). */
export const CLASSIFY_EXAMPLE_BODY =
  'litellm.BadRequestError: AnthropicException - b\'{"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 174167 + 64000 > 200000, decrease input length or `max_tokens` and try again"}}\'';

export interface CliRun {
  id: string;
  argv: string[];
  stdin?: string;
  stdout: string;
  exit: number;
}

export const CLI_COMMANDS: Array<Omit<CliRun, 'stdout' | 'exit'>> = [
  { id: 'estimate', argv: ['estimate', 'examples/long-session.json'] },
  { id: 'fit', argv: ['fit', 'examples/long-session.json', '--context-length', '16384', '--summary'] },
  { id: 'fit-small', argv: ['fit', 'examples/long-session.json', '--context-length', '6000', '--summary'] },
  { id: 'classify', argv: ['classify', '--status', '400'], stdin: CLASSIFY_EXAMPLE_BODY },
  { id: 'classify-batch', argv: ['classify', '--batch', 'examples/errors.jsonl'] },
  { id: 'demo', argv: ['demo'] },
  { id: 'demo-json', argv: ['demo', '--json'] },
  { id: 'demo-ollama', argv: ['demo', '--profile', 'ollama'] },
];

/** Runs one command as a process from the sources, as the README shows it. */
export async function runCommand(command: Omit<CliRun, 'stdout' | 'exit'>): Promise<CliRun> {
  const child = run(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', ...command.argv], {
    cwd: repo,
    maxBuffer: 16 * 1024 * 1024,
  });
  if (command.stdin !== undefined) child.child.stdin?.end(command.stdin);
  try {
    const { stdout } = await child;
    return { ...command, stdout, exit: 0 };
  } catch (error) {
    const failed = error as { stdout?: string; code?: number };
    return { ...command, stdout: failed.stdout ?? '', exit: failed.code ?? 1 };
  }
}

export async function benchCli(): Promise<Record<string, unknown>> {
  const runs: CliRun[] = [];
  for (const command of CLI_COMMANDS) runs.push(await runCommand(command));
  const example = JSON.parse(readFileSync(new URL('../examples/long-session.json', import.meta.url), 'utf8'));
  return {
    runs,
    example_real_tokens: countPromptTokens(example).tokens,
    example_real_tokenizer: "o200k through the emulators' chat template",
  };
}
