/**
 * @module
 * Where a file tool may act: inside the project directory once every symbolic link on the way is
 * followed. The check is made on the real path, and the tools act on that same real path, so a link
 * inside the project (`passwd -> /etc/passwd`, `linkdir -> ../outside`) cannot take them elsewhere.
 */
import { lstat, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { SpillwayError } from '../core/index.js';

/** A path a file tool may act on. */
export interface WorkspacePath {
  /** The real absolute path: links followed; for a path that does not exist yet, the real path of
   * its nearest existing ancestor with the missing names appended. */
  real: string;
  /** The real path as people read it: relative to the project's real directory (`.` for itself). */
  shown: string;
  /** The path as given, relative to the project, when links make it differ from `shown`. */
  via?: string;
}

/** Why a path was refused, in `error.data.reason`. */
export type WorkspacePathRefusal = 'not_a_string' | 'outside' | 'dangling_link' | 'link_loop';

function refuse(reason: WorkspacePathRefusal, message: string, path?: string): SpillwayError {
  return new SpillwayError('invalid_argument', message, {
    data: { reason, ...(path === undefined ? {} : { path }) },
  });
}

/** Whether `full` is `root` or below it; `..hidden` is a name like any other, `..` is not. */
export function isInside(root: string, full: string): boolean {
  const inside = relative(root, full);
  return inside === '' || (!isAbsolute(inside) && inside !== '..' && !inside.startsWith(`..${sep}`));
}

const code = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

/**
 * The real path of `full`, or of its nearest existing ancestor with the missing names appended.
 * A link whose target is missing is refused: the write would create the target, wherever it points.
 */
async function realpathOfNearest(full: string, given: string): Promise<string> {
  const missing: string[] = [];
  let current = full;
  for (;;) {
    try {
      return join(await realpath(current), ...missing.reverse());
    } catch (error) {
      if (code(error) === 'ELOOP')
        throw refuse('link_loop', `${given} goes through a loop of symbolic links; use a real path`, given);
      if (code(error) !== 'ENOENT' && code(error) !== 'ENOTDIR') throw error;
    }
    const link = await lstat(current).then(
      (info) => info.isSymbolicLink(),
      () => false,
    );
    if (link)
      throw refuse(
        'dangling_link',
        `${given} goes through the symbolic link ${current}, whose target does not exist; use the target's own path`,
        given,
      );
    const parent = dirname(current);
    if (parent === current) return join(current, ...missing.reverse());
    missing.push(basename(current));
    current = parent;
  }
}

/**
 * Resolves a path the model gave against the project directory, follows every symbolic link on the
 * way (for a file not written yet: those of its nearest existing ancestor), and refuses a path whose
 * real location is outside the project's real directory. The tools then act on `real`, the path
 * that was checked.
 *
 * @example
 * await resolveWorkspacePath({ root: '/repo', path: 'src/a.ts' }); // { real: '/repo/src/a.ts', shown: 'src/a.ts' }
 * await resolveWorkspacePath({ root: '/repo', path: 'passwd' }); // throws (passwd -> /etc/passwd)
 */
export async function resolveWorkspacePath({
  root,
  path,
}: {
  root: string;
  path: unknown;
}): Promise<WorkspacePath> {
  if (typeof path !== 'string' || path.trim() === '' || path.includes('\0'))
    throw refuse('not_a_string', 'give "path" as a non-empty string, relative to the project directory');
  const realRoot = await realpath(root);
  const lexical = resolve(realRoot, path);
  const real = await realpathOfNearest(lexical, path);
  if (!isInside(realRoot, real))
    throw refuse(
      'outside',
      `${path} is outside the project directory ${realRoot}${real === lexical ? '' : ` (it leads to ${real} through a symbolic link)`}; use a path inside it`,
      path,
    );
  const shown = relative(realRoot, real) || '.';
  const given = relative(realRoot, lexical) || '.';
  return { real, shown, ...(given === shown ? {} : { via: given }) };
}

/** The path as people read it: relative to the workspace, `.` for the root. */
export function displayPath(root: string, full: string): string {
  return relative(root, full) || '.';
}

/** `shown`, with the path it was reached by when a link made them differ: `docs → shared/docs`. */
export function describeWorkspacePath({ shown, via }: WorkspacePath): string {
  return via === undefined ? shown : `${via} → ${shown}`;
}
