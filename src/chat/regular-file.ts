/**
 * @module
 * Reading and writing the project's files without hanging, following a link swapped in late, or
 * writing a file other than the one approved: every file is reached from the project directory one
 * name at a time without following links (`walkToDirectory`), opened without blocking and checked
 * on its open handle, so a named pipe, a socket or a device is refused with a clear error instead of
 * stalling the chat. A write is made only to the file (device and inode, size and time) or the new
 * name the user approved, and never to a file with other hard links, whose other names may lie
 * outside the project.
 */
import type { Stats } from 'node:fs';
import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { SpillwayError } from '../core/index.js';
import {
  beneath,
  createMissing,
  type FileIdentity,
  identityOf,
  namesOf,
  type ProjectWalk,
  refuse,
  sameFile,
  walkToDirectory,
} from './project-files.js';

/** Files larger than this are not read whole (a log of gigabytes would exhaust the memory). */
export const READ_MAX_FILE_BYTES = 32 * 1024 * 1024;

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

function kindOf(info: Stats): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a named pipe';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  if (info.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

function notRegular(shown: string, info: Stats, action: 'read' | 'write'): SpillwayError {
  const kind = kindOf(info);
  const hint = info.isDirectory() && action === 'read' ? '; use list_directory for a directory' : '';
  return new SpillwayError(
    'invalid_argument',
    `${shown} is ${kind}; the file tools ${action} regular files only${hint}`,
    { data: { reason: 'not_regular', path: shown, kind } },
  );
}

function hardLinked(shown: string, links: number): SpillwayError {
  return new SpillwayError(
    'invalid_argument',
    `${shown} has ${links} hard links: a write would change the file under its other names too, and one may be outside the project; the file tools do not write such a file (copy it to a new file and work on that)`,
    { data: { reason: 'hard_links', path: shown, links } },
  );
}

function tooLarge(shown: string, bytes: number, maxBytes: number): SpillwayError {
  return new SpillwayError(
    'invalid_argument',
    `${shown} is ${bytes.toLocaleString('en-US')} bytes, more than the ${maxBytes.toLocaleString('en-US')} the file tools read at once; run_command with head, tail or grep reads parts of it`,
    { data: { reason: 'too_large', path: shown, bytes } },
  );
}

function missingFile(shown: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOENT: no such file, ${shown}`), { code: 'ENOENT' });
}

/** Opens the walk's file: no link followed, no blocking on a pipe; a link there is refused. */
async function openIn(walk: ProjectWalk, shown: string, flags: number): Promise<FileHandle> {
  return await open(beneath(walk.directory, walk.name), flags | NOFOLLOW | NONBLOCK, 0o666).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ELOOP')
        throw new SpillwayError('invalid_argument', `${shown} is a symbolic link; check it and try again`, {
          data: { reason: 'not_regular', path: shown, kind: 'a symbolic link' },
        });
      if (error.code === 'ENXIO' || error.code === 'EISDIR')
        throw new SpillwayError(
          'invalid_argument',
          `${shown} is ${error.code === 'EISDIR' ? 'a directory' : 'a named pipe'}; the file tools write regular files only`,
          { data: { reason: 'not_regular', path: shown } },
        );
      throw error;
    },
  );
}

/** A project file read: its text and which file it was. */
interface ReadFile {
  text: string;
  info: Stats;
}

async function readWalked(walk: ProjectWalk, shown: string, maxBytes: number): Promise<ReadFile> {
  if (walk.missing.length > 0) throw missingFile(shown);
  const handle = await openIn(walk, shown, constants.O_RDONLY);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notRegular(shown, info, 'read');
    if (info.size > maxBytes) throw tooLarge(shown, info.size, maxBytes);
    return { text: await handle.readFile('utf8'), info };
  } finally {
    await handle.close();
  }
}

/**
 * Reads a regular file of the project as UTF-8, reached from `root` without following links.
 * Refuses anything else (a directory, a named pipe, a socket, a device) and files over `maxBytes`,
 * each with an error that says what to do instead; a file that does not exist is `ENOENT`.
 *
 * @example
 * const text = await readRegularFile({ root: '/repo', shown: 'src/a.ts' });
 */
export async function readRegularFile({
  root,
  shown,
  maxBytes = READ_MAX_FILE_BYTES,
}: {
  root: string;
  /** The path relative to the project's real directory (`WorkspacePath.shown`). */
  shown: string;
  maxBytes?: number;
}): Promise<string> {
  if (namesOf(shown).length === 0)
    throw new SpillwayError(
      'invalid_argument',
      `${shown} is a directory; the file tools read regular files only; use list_directory for a directory`,
      { data: { reason: 'not_regular', path: shown, kind: 'a directory' } },
    );
  const walk = await walkToDirectory(root, shown);
  try {
    return (await readWalked(walk, shown, maxBytes)).text;
  } finally {
    await walk.directory.handle.close();
  }
}

/** What the user approves a write on: the file as it is, or the new name and where it goes. */
export interface WriteTarget {
  /** The file's text now; `undefined` for a new file. */
  before: string | undefined;
  /** The directory the walk reached, and the names below it still to create. */
  directory: FileIdentity;
  missing: string[];
  /** The file itself, with its size and time; `undefined` for a new file. */
  file?: FileIdentity;
}

/**
 * What a write would replace, read before the user is asked: the file's text and which file it is,
 * or that it is new and where it would be created. A file with more than one hard link is refused.
 *
 * @example
 * const target = await inspectWriteTarget({ root: '/repo', shown: 'notes/n.md' });
 */
export async function inspectWriteTarget({
  root,
  shown,
}: {
  root: string;
  shown: string;
}): Promise<WriteTarget> {
  const walk = await walkToDirectory(root, shown);
  try {
    const base = { directory: walk.directory.identity, missing: walk.missing };
    const read = await readWalked(walk, shown, READ_MAX_FILE_BYTES).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (read === undefined) return { before: undefined, ...base };
    if (read.info.nlink > 1) throw hardLinked(shown, read.info.nlink);
    return {
      before: read.text,
      ...base,
      file: { ...identityOf(read.info), size: read.info.size, mtimeMs: read.info.mtimeMs },
    };
  } finally {
    await walk.directory.handle.close();
  }
}

const changed = (shown: string) =>
  refuse('changed_since_approved', `${shown} changed since you approved the write; look at it again`, shown);

/**
 * Writes a regular file of the project exactly where the user approved it: the walk from `root` must
 * reach the same directory, and the file must be the same one (device, inode, size and time) or, for
 * a new file, still not exist; its missing directories are created one at a time, none through a
 * link. Anything else is refused with `changed_since_approved`.
 *
 * @example
 * const target = await inspectWriteTarget({ root, shown: 'notes/n.md' });
 * if (await confirm(…)) await writeRegularFile({ root, shown: 'notes/n.md', content: 'hi', target });
 */
export async function writeRegularFile({
  root,
  shown,
  content,
  target,
}: {
  root: string;
  shown: string;
  content: string;
  target: WriteTarget;
}): Promise<void> {
  const walk = await walkToDirectory(root, shown);
  const sameWay =
    sameFile(walk.directory.identity, target.directory) &&
    walk.missing.join('/') === target.missing.join('/');
  if (!sameWay) {
    await walk.directory.handle.close();
    throw changed(shown);
  }
  const directory = await createMissing(walk, shown);
  const reached: ProjectWalk = { directory, missing: [], name: walk.name };
  try {
    const flags =
      target.file === undefined
        ? constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL
        : constants.O_WRONLY;
    const handle = await openIn(reached, shown, flags).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST' || error.code === 'ENOENT') throw changed(shown);
      throw error;
    });
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw notRegular(shown, info, 'write');
      if (info.nlink > 1) throw hardLinked(shown, info.nlink);
      const file = target.file;
      if (
        file !== undefined &&
        !(sameFile(identityOf(info), file) && info.size === file.size && info.mtimeMs === file.mtimeMs)
      )
        throw changed(shown);
      await handle.truncate(0);
      await handle.writeFile(content);
    } finally {
      await handle.close();
    }
  } finally {
    await directory.handle.close();
  }
}
