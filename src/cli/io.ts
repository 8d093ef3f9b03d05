import { readFile } from 'node:fs/promises';
import { jsonTextDepthExcess, SpillwayError, tooDeepMessage } from '../core/index.js';

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

/** Writes `{"error":{code,message,...}}` to standard error and returns the exit code for it. */
export function reportError(error: unknown): number {
  if (SpillwayError.isInstance(error)) {
    process.stderr.write(`${JSON.stringify({ error: error.toJSON() })}\n`);
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
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`${JSON.stringify({ error: { code: 'internal', message } })}\n`);
  return EXIT_FAILURE;
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
