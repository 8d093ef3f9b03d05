/**
 * @module
 * The TCP connections a process and its descendants hold, read from Linux's `/proc`: each process's
 * socket inodes (`/proc/PID/fd`) matched against the kernel's tables (`/proc/net/tcp`, `tcp6`). On
 * any other system there is no `/proc` to read, and the list is empty.
 */
import { readdir, readFile, readlink } from 'node:fs/promises';

/** One open or opening TCP connection. */
export interface Connection {
  /** Remote address (`127.0.0.1`, `2001:db8::1`; IPv4-mapped IPv6 as IPv4). */
  address: string;
  port: number;
  pid: number;
}

/** `ESTABLISHED` and `SYN_SENT` in `/proc/net/tcp`'s `st` column. */
const LIVE_STATES = new Set(['01', '02']);

/** The parent of each process, from `/proc/PID/stat` (the field after the command's closing paren). */
async function parents(): Promise<Map<number, number>> {
  const map = new Map<number, number>();
  const entries = await readdir('/proc').catch(() => [] as string[]);
  await Promise.all(
    entries
      .filter((entry) => /^\d+$/.test(entry))
      .map(async (entry) => {
        const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => undefined);
        const after = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
        const parent = Number(after?.[1]);
        if (Number.isInteger(parent)) map.set(Number(entry), parent);
      }),
  );
  return map;
}

/** `pid` and every process below it. */
export async function processTree(pid: number): Promise<number[]> {
  const parentOf = await parents();
  const children = new Map<number, number[]>();
  for (const [child, parent] of parentOf) children.set(parent, [...(children.get(parent) ?? []), child]);
  const tree: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.shift() as number;
    if (tree.includes(next)) continue;
    tree.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return tree;
}

/** The socket inodes of a process, each with the process. */
async function socketInodes(pid: number): Promise<Map<string, number>> {
  const inodes = new Map<string, number>();
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  await Promise.all(
    fds.map(async (fd) => {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      const match = /^socket:\[(\d+)\]$/.exec(target);
      if (match?.[1] !== undefined) inodes.set(match[1], pid);
    }),
  );
  return inodes;
}

/** An address of `/proc/net/tcp` (`0100007F`) or `tcp6` (32 hex digits), each 32-bit word little-endian. */
export function procAddress(hex: string): string {
  const words = hex.match(/.{8}/g) ?? [];
  const bytes = words.flatMap((word) =>
    (word.match(/../g) ?? []).reverse().map((pair) => Number.parseInt(pair, 16)),
  );
  if (bytes.length === 4) return bytes.join('.');
  const mapped = bytes.slice(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (mapped) return bytes.slice(12).join('.');
  const groups: string[] = [];
  for (let index = 0; index < 16; index += 2)
    groups.push((((bytes[index] ?? 0) << 8) | (bytes[index + 1] ?? 0)).toString(16));
  return groups.join(':');
}

/**
 * An address in the form {@link procAddress} gives: IPv4 as it is (IPv4-mapped IPv6 as IPv4), IPv6
 * as eight groups without compression (`::1` → `0:0:0:0:0:0:0:1`).
 */
export function canonicalAddress(address: string): string {
  const bare = address.replace(/^\[|\]$/g, '').toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (mapped?.[1] !== undefined) return mapped[1];
  if (!bare.includes(':')) return bare;
  const [head = '', tail = ''] = bare.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = bare.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const missing = 8 - left.length - right.length;
  const groups = [...left, ...Array.from({ length: bare.includes('::') ? missing : 0 }, () => '0'), ...right];
  return groups.map((group) => Number.parseInt(group, 16).toString(16)).join(':');
}

/** Live connections in a `/proc/net/tcp`-format table whose inode is one of `inodes`. */
export function parseTcpTable(text: string, inodes: Map<string, number>): Connection[] {
  const found: Connection[] = [];
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    const [remote, state, inode] = [fields[2], fields[3], fields[9]];
    if (remote === undefined || state === undefined || inode === undefined) continue;
    const pid = inodes.get(inode);
    if (pid === undefined || !LIVE_STATES.has(state)) continue;
    const [address, port] = remote.split(':');
    found.push({ address: procAddress(address ?? ''), port: Number.parseInt(port ?? '0', 16), pid });
  }
  return found;
}

/**
 * The live TCP connections of `pid` and its descendants.
 *
 * @example
 * await agentConnections(child.pid); // [{ address: '127.0.0.1', port: 8421, pid: 4242 }]
 */
export async function agentConnections(pid: number): Promise<Connection[]> {
  const inodes = new Map<string, number>();
  for (const member of await processTree(pid))
    for (const [inode, owner] of await socketInodes(member)) inodes.set(inode, owner);
  if (inodes.size === 0) return [];
  const tables = await Promise.all(
    ['/proc/net/tcp', '/proc/net/tcp6'].map((path) => readFile(path, 'utf8').catch(() => '')),
  );
  return tables.flatMap((table) => parseTcpTable(table, inodes));
}
