import { isAbsolute, relative, resolve } from 'node:path';

/**
 * Resolves a path the model gave against the workspace and refuses one that leaves it (`../x`, an
 * absolute path elsewhere): the chat's file tools act on the project the user started it in, nothing
 * else.
 *
 * @example
 * workspacePath({ root: '/repo', path: 'src/a.ts' }); // '/repo/src/a.ts'
 */
export function workspacePath({ root, path }: { root: string; path: unknown }): string {
  if (typeof path !== 'string' || path.trim() === '')
    throw new Error('give "path" as a non-empty string, relative to the project directory');
  const full = resolve(root, path);
  const inside = relative(root, full);
  if (inside.startsWith('..') || isAbsolute(inside))
    throw new Error(`${path} is outside the project directory ${root}; use a path inside it`);
  return full;
}

/** The path as people read it: relative to the workspace, `.` for the root. */
export function displayPath(root: string, full: string): string {
  return relative(root, full) || '.';
}
