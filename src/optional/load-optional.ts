import { createRequire } from 'node:module';
import { SpillwayError } from '../core/index.js';

/** A package Spillway loads only when a feature asks for it. */
export interface OptionalPart {
  /** The module to load: the package name or one of its entry points (`gpt-tokenizer/cjs/…`). */
  specifier: string;
  /** What needs it, for the message: `the SQLite session store`. */
  feature: string;
}

const require = createRequire(import.meta.url);

/** The package a specifier names: `@scope/name` or `name`, without the entry point. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

/**
 * True when loading failed because the package itself is not installed. A package that is installed
 * but fails to load (a native binary built for another Node, a missing transitive dependency) is a
 * different problem: its own error goes through unchanged.
 */
function isNotInstalled(error: unknown, packageName: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  return (
    typeof message === 'string' &&
    (message.includes(`'${packageName}'`) || message.includes(`'${packageName}/`))
  );
}

function missing(part: OptionalPart, cause: unknown): SpillwayError {
  const packageName = packageOf(part.specifier);
  return new SpillwayError(
    'missing_dependency',
    `${part.feature} needs the package ${packageName}, which is not installed; run npm install ${packageName}`,
    { cause, data: { package: packageName } },
  );
}

/**
 * `error` as a `missing_dependency` error when it says that a package is not installed (Node's
 * `Cannot find package 'zod' imported from …` of a static import), else `error` itself: for
 * modules whose imports fail before any code of theirs runs, such as a command of the command line.
 */
export function asMissingDependency(error: unknown, feature: string): unknown {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' || typeof message !== 'string') return error;
  const named = /^Cannot find package '([^']+)'/.exec(message)?.[1];
  return named === undefined ? error : missing({ specifier: named, feature }, error);
}

/**
 * Loads a CommonJS package synchronously, for the constructors that open a store at once.
 * Throws `missing_dependency` when the package is not installed.
 *
 * @example
 * const Database = requireOptional<typeof import('better-sqlite3')>({ specifier: 'better-sqlite3', feature: 'the SQLite session store' });
 */
export function requireOptional<T>(part: OptionalPart): T {
  try {
    return require(part.specifier) as T;
  } catch (error) {
    throw isNotInstalled(error, packageOf(part.specifier)) ? missing(part, error) : error;
  }
}

/**
 * Loads a package with `import()`. Rejects with `missing_dependency` when the package is not installed.
 *
 * @example
 * const { Client } = await importOptional<typeof import('@modelcontextprotocol/sdk/client/index.js')>({
 *   specifier: '@modelcontextprotocol/sdk/client/index.js',
 *   feature: 'connecting to an MCP server',
 * });
 */
export async function importOptional<T>(part: OptionalPart): Promise<T> {
  try {
    return (await import(part.specifier)) as T;
  } catch (error) {
    throw isNotInstalled(error, packageOf(part.specifier)) ? missing(part, error) : error;
  }
}
