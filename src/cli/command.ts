import { type ParseArgsConfig, parseArgs } from 'node:util';
import { usageError } from './io.js';

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

/** Flags every command takes: `--help` prints its usage, `--json` writes its errors as JSON. */
export const GLOBAL_OPTIONS: NonNullable<ParseArgsConfig['options']> = {
  help: { type: 'boolean', short: 'h' },
  json: { type: 'boolean' },
};

/**
 * Parses a command's arguments strictly: a flag the command does not take, or one without its
 * value, is a usage error in one line (`unknown option --modle; did you mean --model?`).
 */
export function parseCommandArgs(command: Command, argv: string[]): ParsedArgs {
  const options = { ...GLOBAL_OPTIONS, ...command.options };
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return { values: values as ParsedArgs['values'], positionals };
  } catch (error) {
    throw usageError(readableParseError(error as Error & { code?: string }, Object.keys(options)));
  }
}

/** Node's `parseArgs` error (`Unknown option '--x'. To specify a positional…`) as one short line. */
function readableParseError(error: Error & { code?: string }, flags: readonly string[]): string {
  const option = /'(-[^' ]*)/.exec(error.message)?.[1];
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option !== undefined) {
    const near = nearestFlag(option.replace(/^-+/, ''), flags);
    return `unknown option ${option}${near === undefined ? '' : `; did you mean --${near}?`}`;
  }
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option !== undefined) {
    const flag = /(--[a-z][a-z0-9-]*)/.exec(error.message)?.[1] ?? option;
    if (/does not take an argument/.test(error.message)) return `${flag} takes no value`;
    if (/ambiguous/.test(error.message))
      return `${flag} needs a value (one that starts with a dash is written ${flag}=VALUE)`;
    return `${flag} needs a value`;
  }
  return error.message;
}

/** The flag a mistyped one most likely meant: within two edits, or the only one it starts. */
function nearestFlag(typed: string, flags: readonly string[]): string | undefined {
  let best: { flag: string; distance: number } | undefined;
  for (const flag of flags) {
    const distance = editDistance(typed, flag);
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { flag, distance };
  }
  if (best !== undefined) return best.flag;
  const started = flags.filter((flag) => typed.length >= 2 && flag.startsWith(typed));
  return started.length === 1 ? started[0] : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = current;
  }
  return previous[b.length] as number;
}
