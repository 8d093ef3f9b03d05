import { asMissingDependency } from '../optional/index.js';
import type { Command } from './command.js';
import { parseCommandArgs } from './command.js';
import { EXIT_BAD_INPUT, EXIT_OK, reportError } from './io.js';

/** The commands, loaded on demand so that `spillway estimate` never loads the proxy or the emulator. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  classify: async () => (await import('./commands/classify.js')).classifyCommand,
  estimate: async () => (await import('./commands/estimate.js')).estimateCommand,
  fit: async () => (await import('./commands/fit.js')).fitCommand,
  emulate: async () => (await import('./commands/emulate.js')).emulateCommand,
  chat: async () => (await import('./commands/chat.js')).chatCommand,
  demo: async () => (await import('./commands/demo.js')).demoCommand,
  serve: async () => (await import('./commands/serve.js')).serveCommand,
  wrap: async () => (await import('./commands/wrap.js')).wrapCommand,
  limits: async () => (await import('./commands/limits.js')).limitsCommand,
};

const USAGE = `spillway — keep LLM agent loops inside the context window

usage: spillway <command> [options]   (every command: --help)

commands:
`;

async function usage(): Promise<string> {
  const lines = await Promise.all(
    Object.entries(COMMANDS).map(async ([name, load]) => `  ${name.padEnd(10)} ${(await load()).summary}`),
  );
  return USAGE + lines.join('\n') + '\n';
}

/** Runs the `spillway` command line and returns the exit code. */
export async function run(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    try {
      process.stdout.write(await usage());
    } catch (error) {
      return reportError(asMissingDependency(error, 'the command line'));
    }
    return name === undefined ? EXIT_BAD_INPUT : EXIT_OK;
  }
  if (name === '--version' || name === '-v') {
    const { readFile } = await import('node:fs/promises');
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    process.stdout.write(`${pkg.version}\n`);
    return EXIT_OK;
  }
  const load = COMMANDS[name];
  if (!load) {
    process.stderr.write(
      `${JSON.stringify({ error: { code: 'invalid_argument', message: `unknown command ${JSON.stringify(name)}; run spillway --help for the list` } })}\n`,
    );
    return EXIT_BAD_INPUT;
  }
  try {
    // A command whose optional dependency was left out (npm install --omit=optional) fails to load.
    const command = await load().catch((error: unknown) => {
      throw asMissingDependency(error, `spillway ${name}`);
    });
    const parsed = command.parse ? command.parse(rest) : parseCommandArgs(command, rest);
    if (parsed.values.help) {
      process.stdout.write(`${command.usage}\n`);
      return EXIT_OK;
    }
    return await command.run(parsed);
  } catch (error) {
    return reportError(error);
  }
}
