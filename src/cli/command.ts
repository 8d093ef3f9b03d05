import { type ParseArgsConfig, parseArgs } from 'node:util';
import { SpillwayError } from '../core/index.js';

/** One `spillway` subcommand. */
export interface Command {
  /** One line for the command list. */
  summary: string;
  /** The full `--help` text. */
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /**
   * Parses the arguments itself (a command that passes the rest of its line on to another program);
   * otherwise {@link parseCommandArgs} does, strictly.
   */
  parse?(argv: string[]): ParsedArgs;
  /** Runs the command; returns the exit code. */
  run(parsed: {
    values: Record<string, string | boolean | string[] | undefined>;
    positionals: string[];
  }): Promise<number>;
}

/** A command's arguments: flag values by name, and the positionals in order. */
export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
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
