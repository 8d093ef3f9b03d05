/**
 * @module
 * Files of the project opened from the project directory one name at a time, none of them followed
 * if it is a link, so what was checked is what is opened: a directory swapped for a link between the
 * check and the write (`sub` → `../outside`) makes the write fail instead of landing outside. On
 * Linux each name is opened inside the directory opened before it (`/proc/self/fd/N/name`: the
 * kernel looks the name up in that very directory, as `openat` does); elsewhere each name is opened
 * by its path with `O_NOFOLLOW`. A file is known by its device and inode (and, to be written, its
 * size and modification time), so the file the user approved is the one written.
 */
import { constants, existsSync, type Stats } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { SpillwayError } from '../core/index.js';

/** Opening a name inside a directory handle works where `/proc/self/fd` names open descriptors. */
const BENEATH = process.platform === 'linux' && existsSync('/proc/self/fd');

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const DIRECTORY = constants.O_DIRECTORY ?? 0;

/** Which file or directory: its device and inode; for a file to write, its size and time too. */
export interface FileIdentity {
  dev: number;
  ino: number;
  size?: number;
  mtimeMs?: number;
}

/** An open directory of the project and the path it was reached by. */
export interface ProjectDirectory {
  handle: FileHandle;
  path: string;
  identity: FileIdentity;
}

/** Why a project file could not be opened safely, in `error.data.reason`. */
export type ProjectFileRefusal = 'link_in_path' | 'not_a_directory' | 'changed_since_approved';

export function refuse(reason: ProjectFileRefusal, message: string, shown: string): SpillwayError {
  return new SpillwayError('invalid_argument', message, { data: { reason, path: shown } });
}

export const identityOf = (info: Stats): FileIdentity => ({ dev: info.dev, ino: info.ino });

export const sameFile = (left: FileIdentity, right: FileIdentity): boolean =>
  left.dev === right.dev && left.ino === right.ino;

/** The path that opens `name` inside `directory`, without going through its path again. */
export function beneath(directory: ProjectDirectory, name: string): string {
  return BENEATH ? `/proc/self/fd/${directory.handle.fd}/${name}` : join(directory.path, name);
}

/** The project directory itself, opened (its own path is the user's, trusted as it is). */
export async function openProjectRoot(root: string): Promise<ProjectDirectory> {
  const path = await realpath(root);
  const handle = await open(path, constants.O_RDONLY | DIRECTORY);
  return { handle, path, identity: identityOf(await handle.stat()) };
}

const code = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

/** A directory inside `parent`, never through a link; `undefined` when it does not exist. */
async function openChild(
  parent: ProjectDirectory,
  name: string,
  shown: string,
): Promise<ProjectDirectory | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(beneath(parent, name), constants.O_RDONLY | DIRECTORY | NOFOLLOW);
  } catch (error) {
    if (code(error) === 'ENOENT') return undefined;
    // With O_DIRECTORY, Linux reports a link as ENOTDIR: look at what is there to say which.
    const link =
      code(error) === 'ELOOP' ||
      (code(error) === 'ENOTDIR' &&
        (await lstat(beneath(parent, name)).then(
          (info) => info.isSymbolicLink(),
          () => false,
        )));
    if (link)
      throw refuse(
        'link_in_path',
        `${shown}: ${name} is a symbolic link now, not the directory that was checked; the file tools do not go through it (check it and try again)`,
        shown,
      );
    if (code(error) === 'ENOTDIR')
      throw refuse('not_a_directory', `${shown}: ${name} is not a directory`, shown);
    throw error;
  }
  return { handle, path: join(parent.path, name), identity: identityOf(await handle.stat()) };
}

/** The names of a path relative to the project directory (`.` has none). */
export function namesOf(shown: string): string[] {
  return shown === '.' ? [] : shown.split(sep).filter((name) => name !== '' && name !== '.');
}

/** Where the walk to a file's directory stopped: the deepest directory that exists, and the rest. */
export interface ProjectWalk {
  directory: ProjectDirectory;
  /** Directory names below `directory` that do not exist (yet). */
  missing: string[];
  /** The file's own name. */
  name: string;
}

/**
 * Walks from the project directory to the directory that holds `shown`, one name at a time, each
 * opened without following a link; stops at the first name that does not exist. Directories passed
 * are closed; the caller closes the one returned.
 */
export async function walkToDirectory(root: string, shown: string): Promise<ProjectWalk> {
  const names = namesOf(shown);
  const name = names.pop();
  if (name === undefined)
    throw refuse('not_a_directory', 'give the path of a file, not the project directory', shown);
  let directory = await openProjectRoot(root);
  for (const [index, next] of names.entries()) {
    const child = await openChild(directory, next, shown).catch(async (error: unknown) => {
      await directory.handle.close();
      throw error;
    });
    if (child === undefined) return { directory, missing: names.slice(index), name };
    await directory.handle.close();
    directory = child;
  }
  return { directory, missing: [], name };
}

/**
 * Creates the missing directories of a walk, each inside the one before and opened without
 * following a link; a name that exists by now is something that changed since it was approved.
 */
export async function createMissing(walk: ProjectWalk, shown: string): Promise<ProjectDirectory> {
  let directory = walk.directory;
  for (const name of walk.missing) {
    try {
      await mkdir(beneath(directory, name), 0o777);
    } catch (error) {
      await directory.handle.close();
      if (code(error) === 'EEXIST')
        throw refuse(
          'changed_since_approved',
          `${shown}: ${name} appeared since you approved the write; look at it again`,
          shown,
        );
      throw error;
    }
    const parent = directory;
    const child = await openChild(parent, name, shown).finally(() => parent.handle.close());
    if (child === undefined)
      throw refuse(
        'changed_since_approved',
        `${shown}: ${name} vanished while it was created; try again`,
        shown,
      );
    directory = child;
  }
  return directory;
}

/**
 * A directory of the project (`.` for the project directory), reached one name at a time without
 * following links; the caller closes it. A name that does not exist is `ENOENT`.
 */
export async function openProjectDirectory(root: string, shown: string): Promise<ProjectDirectory> {
  let directory = await openProjectRoot(root);
  for (const name of namesOf(shown)) {
    const parent = directory;
    const child = await openChild(parent, name, shown).finally(() => parent.handle.close());
    if (child === undefined)
      throw Object.assign(new Error(`ENOENT: no such directory, ${shown}`), { code: 'ENOENT' });
    directory = child;
  }
  return directory;
}
