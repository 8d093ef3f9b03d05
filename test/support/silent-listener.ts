/**
 * A TCP port where connecting hangs: a listening socket with a backlog of one that never accepts,
 * its one queue slot taken. The kernel then drops further SYNs, so a client's `connect` waits until
 * its own timeout, as it does for a host that is down behind a firewall. Node accepts every
 * connection on its own, so the listener is a small `python3` process (`.ci/run` installs it).
 */
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';

/** A port whose connections never open. */
export interface SilentListener {
  port: number;
  close(): Promise<void>;
}

const LISTENER = [
  'import socket, sys, time',
  's = socket.socket()',
  "s.bind(('127.0.0.1', 0))",
  's.listen(0)',
  'print(s.getsockname()[1], flush=True)',
  'sys.stdin.read()',
].join('\n');

export async function startSilentListener(): Promise<SilentListener> {
  const child = spawn('python3', ['-c', LISTENER], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', (error) =>
      reject(new Error(`cannot start python3 for a silent listener: ${error.message}`)),
    );
    child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
  });
  // Take the one slot of the accept queue, so every later connection waits.
  const held: Socket = await new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
  return {
    port,
    close: async () => {
      held.destroy();
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.stdin.end();
      child.kill('SIGTERM');
      await exited;
    },
  };
}
