/**
 * `spillway serve` as its own process (node with tsx as a loader, so signals and memory figures are
 * the proxy's own): started on a free port, its stderr log lines kept, its resident memory read from
 * `/proc`, stopped with SIGTERM. Without `--store` it runs on its default store in a data directory
 * of its own, made for it and removed after it: no test's result depends on what another run left.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const loader = join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs');

/** A running `spillway serve`. */
export interface ServeProcess {
  url: string;
  child: ChildProcess;
  /** Every JSON log line it wrote on stderr so far. */
  logs: Record<string, unknown>[];
  /** Resident set size in bytes (`VmRSS` of `/proc/PID/status`). */
  rssBytes(): number;
  /**
   * Resident set size in bytes after a full garbage collection that compacts the heap: what the
   * process keeps, not the garbage it has not collected yet (bench/memory-probe.mjs, loaded into
   * every process this starts).
   */
  keptBytes(): Promise<number>;
  /** SIGTERM, then the exit code (or the signal that ended it). */
  stop(): Promise<number | string | null>;
}

/** Starts `spillway serve --port 0 …args` and resolves once it prints its address. */
export function spawnServe(
  args: string[],
  { env = process.env }: { env?: NodeJS.ProcessEnv } = {},
): Promise<ServeProcess> {
  const fresh = args.includes('--store') ? undefined : mkdtempSync(join(tmpdir(), 'spillway-serve-store-'));
  const child = spawn(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      loader,
      '--import',
      pathToFileURL(join(root, 'bench', 'memory-probe.mjs')).href,
      join(root, 'src/cli/bin.ts'),
      'serve',
      '--port',
      '0',
      ...args,
    ],
    {
      cwd: root,
      env: fresh === undefined ? env : { ...env, SPILLWAY_STORE: join(fresh, 'sessions.db') },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    },
  );
  if (fresh !== undefined) child.once('exit', () => rmSync(fresh, { recursive: true, force: true }));
  const logs: Record<string, unknown>[] = [];
  let pending = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        logs.push({ text: line });
      }
    }
  });
  const exited = new Promise<number | string | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal)),
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)\n/.exec(out);
      if (!match?.[1]) return;
      resolve({
        url: match[1],
        child,
        logs,
        rssBytes() {
          const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
          return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
        },
        keptBytes() {
          return new Promise((answer) => {
            child.once('message', (figures) => answer((figures as { rss: number }).rss));
            child.send('measure');
          });
        },
        stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          return exited;
        },
      });
    });
    child.once('exit', (code) =>
      reject(new Error(`spillway serve exited with ${code} before listening: ${JSON.stringify(logs)}`)),
    );
  });
}
