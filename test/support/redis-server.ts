/**
 * A real `redis-server` for tests: started on a free loopback port with persistence off
 * (`--save '' --appendonly no`), frozen and thawed with SIGSTOP / SIGCONT, stopped with SIGTERM.
 * `.ci/run` installs Debian's redis-server.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** A running Redis. */
export interface RedisServer {
  url: string;
  port: number;
  /** Freezes the process (SIGSTOP): connections stay open, nothing is answered. */
  pause(): void;
  /** Thaws it (SIGCONT). */
  resume(): void;
  stop(): Promise<void>;
}

/** A port nothing listens on right now (Redis cannot be told to pick one itself). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function waitReady(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        child.stdout?.off('data', onData);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.once('error', (error) => reject(new Error(`cannot start redis-server: ${error.message}`)));
    child.once('exit', (code) =>
      reject(new Error(`redis-server exited with ${code} before it was ready:\n${output}`)),
    );
  });
}

/** Starts a throwaway Redis; retries on a port another process took in between. */
export async function startRedisServer({
  command = 'redis-server',
}: {
  command?: string;
} = {}): Promise<RedisServer> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const child = spawn(
      command,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--loglevel',
        'notice',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      await waitReady(child);
    } catch (error) {
      lastError = error;
      child.kill('SIGKILL');
      continue;
    }
    return {
      url: `redis://127.0.0.1:${port}`,
      port,
      pause: () => {
        child.kill('SIGSTOP');
      },
      resume: () => {
        child.kill('SIGCONT');
      },
      stop: () =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) {
            resolve();
            return;
          }
          child.once('exit', () => resolve());
          // A frozen server must be thawed to handle SIGTERM.
          child.kill('SIGCONT');
          child.kill('SIGTERM');
        }),
    };
  }
  throw lastError;
}
