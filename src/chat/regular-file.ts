/**
 * @module
 * Reading and writing the project's files without hanging or following a link swapped in late: a
 * file is opened without blocking and checked on its open handle, so a named pipe, a socket or a
 * device is refused with a clear error instead of stalling the chat, and a write never follows a
 * link at the last name.
 */
import type { Stats } from 'node:fs';
import { constants } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { SpillwayError } from '../core/index.js';

/** Files larger than this are not read whole (a log of gigabytes would exhaust the memory). */
export const READ_MAX_FILE_BYTES = 32 * 1024 * 1024;

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

/**
 * Reads a regular file as UTF-8. Refuses anything else (a directory, a named pipe, a socket, a
 * device) and files over `maxBytes`, each with an error that says what to do instead.
 *
 * @example
 * const text = await readRegularFile({ real: '/repo/src/a.ts', shown: 'src/a.ts' });
 */
export async function readRegularFile({
  real,
  shown,
  maxBytes = READ_MAX_FILE_BYTES,
}: {
  real: string;
  shown: string;
  maxBytes?: number;
}): Promise<string> {
  // O_NONBLOCK: opening a named pipe for reading would otherwise wait for a writer, forever.
  const handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notRegular(shown, info, 'read');
    if (info.size > maxBytes)
      throw new SpillwayError(
        'invalid_argument',
        `${shown} is ${info.size.toLocaleString('en-US')} bytes, more than the ${maxBytes.toLocaleString('en-US')} the file tools read at once; run_command with head, tail or grep reads parts of it`,
        { data: { reason: 'too_large', path: shown, bytes: info.size } },
      );
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * Writes a regular file, creating it and its directories. The last name is opened without following
 * a link (a link put there after the path was checked fails the write) and without blocking; an
 * existing named pipe, socket or device is refused.
 *
 * @example
 * await writeRegularFile({ real: '/repo/notes/n.md', shown: 'notes/n.md', content: 'hi' });
 */
export async function writeRegularFile({
  real,
  shown,
  content,
}: {
  real: string;
  shown: string;
  content: string;
}): Promise<void> {
  await mkdir(dirname(real), { recursive: true });
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  const handle = await open(real, flags, 0o666).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ELOOP')
      throw new SpillwayError('invalid_argument', `${shown} became a symbolic link; check it and try again`, {
        data: { reason: 'not_regular', path: shown, kind: 'a symbolic link' },
      });
    if (error.code === 'ENXIO' || error.code === 'EISDIR')
      throw new SpillwayError(
        'invalid_argument',
        `${shown} is ${error.code === 'EISDIR' ? 'a directory' : 'a named pipe'}; the file tools write regular files only`,
        { data: { reason: 'not_regular', path: shown } },
      );
    throw error;
  });
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notRegular(shown, info, 'write');
    await handle.truncate(0);
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
}
