/**
 * @module
 * One way to report a configuration file's shape error: the path of the first problem as the file
 * spells it, and for an unknown key the keys allowed there, prefixed with the file.
 */
import type { z } from 'zod';
import { jsonTextDepthExcess, SpillwayError, tooDeepMessage } from '../core/index.js';

/** A path as the file spells it: `models["glm5.2"].context_length`, `mcp_servers.github.args[0]`. */
export function configPathText(path: readonly PropertyKey[]): string {
  return path
    .map((key, index) => {
      if (typeof key === 'number') return `[${key}]`;
      const name = String(key);
      if (/^[A-Za-z_]\w*$/.test(name)) return index === 0 ? name : `.${name}`;
      return `[${JSON.stringify(name)}]`;
    })
    .join('');
}

/** Inputs of {@link configShapeError}. */
export interface ConfigShapeErrorOptions {
  /** Prefixed to the message (the file and `: `), or empty. */
  prefix: string;
  /** The keys allowed in the object at `path`, for an unknown key's message (none known: `[]`). */
  allowedKeys: (path: readonly PropertyKey[]) => readonly string[];
}

/**
 * The `invalid_config` error for a zod shape error. An unknown key also leaves a union branch or the
 * key it was meant to be unmatched: the unknown key is reported, since it names the fix.
 *
 * @example
 * configShapeError(error, { prefix: 'proxy.json: ', allowedKeys: () => ['context_length'] }).message;
 * // 'proxy.json: context_lenght: unknown key; use one of context_length'
 */
export function configShapeError(
  error: z.ZodError,
  { prefix, allowedKeys }: ConfigShapeErrorOptions,
): SpillwayError {
  const issues = error.issues.flatMap((issue) =>
    issue.code === 'invalid_union'
      ? issue.errors.flat().map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }))
      : [issue],
  );
  const issue = issues.find((candidate) => candidate.code === 'unrecognized_keys') ?? issues[0];
  const base = issue?.path ?? [];
  let where = configPathText(base);
  let message = issue?.message ?? 'invalid';
  if (issue?.code === 'unrecognized_keys') {
    where = configPathText([...base, issue.keys[0] ?? '']);
    const allowed = allowedKeys(base);
    message = allowed.length > 0 ? `unknown key; use one of ${allowed.join(', ')}` : 'unknown key';
  }
  return new SpillwayError('invalid_config', `${prefix}${where || '(root)'}: ${message}`, {
    data: { path: where },
  });
}

/**
 * A configuration file's text as JSON: too deep a nesting and a syntax error are `invalid_config`
 * naming the file.
 *
 * @example
 * parseConfigText('{"context_length": 32768}', 'proxy.json'); // { context_length: 32768 }
 */
export function parseConfigText(text: string, path: string): unknown {
  if (jsonTextDepthExcess(text) !== undefined)
    throw new SpillwayError('invalid_config', `${path}: ${tooDeepMessage('the config')}`);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SpillwayError(
      'invalid_config',
      `${path}: not valid JSON (${(error as Error).message}); the config is one JSON object`,
      { cause: error },
    );
  }
}
