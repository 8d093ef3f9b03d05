import { type ParseArgsConfig, parseArgs } from 'node:util';
import { SpillwayError } from '../core/index.js';

/** One `spillway` subcommand. */
export interface Command {
  /** One line for the command list. */
  summary: string;
  /** The full `--help` text. */
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /** Runs the command; returns the exit code. */
  run(parsed: {
    values: Record<string, string | boolean | string[] | undefined>;
    positionals: string[];
  }): Promise<number>;
}

/** Parses a command's arguments strictly: unknown flags fail with the command's usage. */
export function parseCommandArgs(
  command: Command,
  argv: string[],
): { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
    return { values: values as Record<string, string | boolean | string[] | undefined>, positionals };
  } catch (error) {
    throw new SpillwayError('invalid_argument', `${(error as Error).message}\n\n${command.usage}`);
  }
}
