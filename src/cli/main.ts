import { COMMANDS, commandListUsage } from './command-list.js';

/** Exit codes (as io.ts has them; repeated here so that `--help` loads nothing else). */
const EXIT_OK = 0;
const EXIT_BAD_INPUT = 2;

/** Whether the command line asks for errors as JSON (`--json` before any `--`). */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

/**
 * Runs the `spillway` command line and returns the exit code. `spillway --help` loads no command;
 * a command loads the parts of the library it uses when it runs.
 */
export async function run(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(commandListUsage());
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
  const io = await import('./io.js');
  if (wantsJson(argv)) io.setErrorStyle({ json: true });
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (entry === undefined) {
    io.setErrorStyle({ usage: commandListUsage().trimEnd() });
    return io.reportError(
      io.usageError(`unknown command ${JSON.stringify(name)}; spillway --help lists the commands`),
    );
  }
  io.setErrorStyle({ command: name });
  try {
    // A command whose optional dependency was left out (npm install --omit=optional) fails to load.
    const command = await entry.load().catch(async (error: unknown) => {
      const { asMissingDependency } = await import('../optional/index.js');
      throw asMissingDependency(error, `spillway ${name}`);
    });
    io.setErrorStyle({ usage: command.usage });
    const { parseCommandArgs } = await import('./command.js');
    const parsed = command.parse ? command.parse(rest) : parseCommandArgs(command, rest);
    if (parsed.values.help) {
      process.stdout.write(`${command.usage}\n`);
      return EXIT_OK;
    }
    return await command.run(parsed);
  } catch (error) {
    return io.reportError(asUsageError(error, io));
  }
}

/**
 * A command that parses its own line (`wrap`) ends its usage errors with its usage; they are usage
 * errors like the others, said in one line, the usage shown after it to a person.
 */
function asUsageError(error: unknown, io: typeof import('./io.js')): unknown {
  if (!(error instanceof Error) || io.isUsageError(error)) return error;
  const marker = error.message.indexOf('\n\nusage: ');
  if (marker === -1 || (error as { code?: unknown }).code !== 'invalid_argument') return error;
  return io.usageError(error.message.slice(0, marker));
}
