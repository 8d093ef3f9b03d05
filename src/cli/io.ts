import { readFile } from 'node:fs/promises';
import { SpillwayError } from '../core/errors/index.js';
import { jsonTextDepthExcess, tooDeepMessage } from '../core/transcript/index.js';

/** Exit codes every command shares. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_BAD_INPUT = 2;
export const EXIT_CONTEXT_TRUNCATED = 3;

/** Reads a command's input: a file path, or `-` for standard input. */
export async function readInput(source: string | undefined, what: string): Promise<string> {
  if (source === undefined)
    throw new SpillwayError(
      'invalid_argument',
      `give the ${what} as a file path, or - to read standard input`,
    );
  if (source === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
  try {
    return await readFile(source, 'utf8');
  } catch (error) {
    throw new SpillwayError(
      'invalid_argument',
      `cannot read ${source}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      { cause: error },
    );
  }
}

/** Parses JSON, with an error that names what was being read; nesting past `MAX_JSON_DEPTH` is refused unparsed. */
export function parseJson(
  text: string,
  what: string,
  code: 'invalid_transcript' | 'invalid_argument' = 'invalid_argument',
): unknown {
  const excess = jsonTextDepthExcess(text);
  if (excess) throw new SpillwayError(code, tooDeepMessage(what), { data: { offset: excess.offset } });
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SpillwayError(code, `${what} is not valid JSON: ${(error as Error).message}`);
  }
}

/** Writes one JSON document to standard output. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/**
 * How errors are written: as one JSON document (`{"error":{"code","message",…}}`, the documented
 * shape) when standard error is not a terminal or `--json` was given, else as lines for a person,
 * naming the command, with its usage after a mistake in the command line.
 */
export interface ErrorStyle {
  json: boolean;
  /** The command that ran, for the prefix of a message and its hint. */
  command?: string;
  /** Its `--help` text, shown after a mistake in the command line. */
  usage?: string;
}

let style: ErrorStyle = { json: process.stderr.isTTY !== true };

/** Sets how {@link reportError} writes (the command line sets it once it knows the command). */
export function setErrorStyle(next: Partial<ErrorStyle>): void {
  style = { ...style, ...next };
}

/** Errors that are mistakes in the command line itself (a flag unknown or without its value). */
const USAGE_ERRORS = new WeakSet<object>();

/** An `invalid_argument` error for a mistake in the command line: a person also gets the usage. */
export function usageError(message: string): SpillwayError {
  const error = new SpillwayError('invalid_argument', message);
  USAGE_ERRORS.add(error);
  return error;
}

/** Whether `error` is a mistake in the command line (see {@link usageError}). */
export function isUsageError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && USAGE_ERRORS.has(error);
}

/** The exit code for an error: 3 when nothing fits, 2 for bad input, 1 for anything else. */
export function exitCodeOf(error: unknown): number {
  if (!SpillwayError.isInstance(error)) return EXIT_FAILURE;
  if (error.code === 'context_truncated') return EXIT_CONTEXT_TRUNCATED;
  if (
    error.code === 'invalid_transcript' ||
    error.code === 'invalid_argument' ||
    error.code === 'invalid_config' ||
    error.code === 'invalid_request'
  )
    return EXIT_BAD_INPUT;
  return EXIT_FAILURE;
}

/** Writes an error to standard error, as {@link ErrorStyle} says, and returns its exit code. */
export function reportError(error: unknown): number {
  const known = SpillwayError.isInstance(error);
  const message = error instanceof Error ? error.message : String(error);
  const command = style.command === undefined ? 'spillway' : `spillway ${style.command}`;
  if (style.json) {
    const fields = known ? error.toJSON() : { code: 'internal', message };
    if (isUsageError(error) && style.command !== undefined)
      fields.message = `${message} (${command} --help shows its options)`;
    process.stderr.write(`${JSON.stringify({ error: fields })}\n`);
  } else {
    const lines = [`${command}: ${known ? message : `${message} (an internal error; please report it)`}`];
    if (isUsageError(error) && style.usage !== undefined) lines.push('', style.usage);
    process.stderr.write(`${lines.join('\n')}\n`);
  }
  return exitCodeOf(error);
}

/** Reads a positive integer flag, or fails with a message naming the flag. */
export function integerFlag(
  value: string | undefined,
  flag: string,
  { min = 1 }: { min?: number } = {},
): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min)
    throw new SpillwayError(
      'invalid_argument',
      `--${flag} must be an integer >= ${min}, got ${JSON.stringify(value)}`,
    );
  return number;
}

/** Reads a flag that must be one of `choices`. */
export function choiceFlag<T extends string>(
  value: string | undefined,
  flag: string,
  choices: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (!(choices as readonly string[]).includes(value))
    throw new SpillwayError(
      'invalid_argument',
      `--${flag} must be one of ${choices.join(', ')}, got ${JSON.stringify(value)}`,
    );
  return value as T;
}

/** Resolves on the first SIGINT or SIGTERM: how long-running commands (`emulate`, `serve`) wait. */
export function untilStopped(): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
