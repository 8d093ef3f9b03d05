/**
 * One run of a real client on the task: against its emulator directly, or through `spillway wrap`
 * (a real `spillway` process that starts the proxy and the client). Each run gets its own emulator,
 * home and workspace, so runs can go side by side.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../../src/emulator/index.js';
import { type ClientSpec, type ClientTask, type RecordedLaunch, writeTaskFiles } from './client-specs.js';
import type { ClientRunResult } from './clients-results.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const loader = join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs');
/** The most a run may take before it is stopped and counted as not completed. */
export const RUN_TIMEOUT_MS = 240_000;
/** What the generic agent writes, and what its last reply says. */
const RESULT_FILE = 'line-counts.txt';
const DONE = 'Done: I read';

function runProcess(
  command: string,
  args: string[],
  { cwd, env }: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    // PWD too: opencode takes its working directory from it rather than from the process.
    const child = spawn(command, args, {
      cwd,
      env: { ...env, PWD: cwd },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, RUN_TIMEOUT_MS);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), output });
    });
  });
}

/**
 * A directory holding a stand-in for `command` that records what the agent is given
 * (`record-launch.mjs`) and runs the real one from `bin`; the variables it needs to do so.
 */
function recorder(
  home: string,
  command: string,
  bin: string,
): { dir: string; env: NodeJS.ProcessEnv; file: string } {
  const dir = join(home, 'recorder');
  mkdirSync(dir, { recursive: true });
  const script = join(dir, command);
  const launcher = join(root, 'test', 'real-clients', 'record-launch.mjs');
  writeFileSync(script, `#!/bin/sh\nexec "${process.execPath}" "${launcher}" "$@"\n`);
  chmodSync(script, 0o755);
  const file = join(home, 'launch.json');
  return { dir, file, env: { SPILLWAY_REAL_AGENT: join(bin, command), SPILLWAY_LAUNCH_RECORD: file } };
}

function readLaunch(file: string): RecordedLaunch | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as RecordedLaunch;
  } catch {
    return undefined;
  }
}

/** Whether the workspace holds the line counts of every file of `task`. */
function countsWritten(workspace: string, task: ClientTask): boolean {
  const path = join(workspace, RESULT_FILE);
  if (!existsSync(path)) return false;
  const text = readFileSync(path, 'utf8');
  return task.files.every((file) => new RegExp(`\\b${task.lines} ${file.replace('.', '\\.')}`).test(text));
}

/** A fresh `spillway serve` (its default store under `home`, so nothing is left from other runs). */
async function startServe(
  upstream: string,
  env: NodeJS.ProcessEnv,
): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    ['--import', loader, join(root, 'src/cli/bin.ts'), 'serve', '--upstream', upstream, '--port', '0'],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = /listening on (http:\/\/\S+)/.exec(out);
      if (line?.[1]) resolve(line[1]);
    });
    child.stderr?.resume();
    child.once('exit', (code) => reject(new Error(`spillway serve exited with ${code} before listening`)));
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { url, stop };
}

/**
 * Runs `spec`'s client on the task in `mode`, with the clients' executables in `bin`: directly
 * against the emulator, through `spillway wrap`, or pointed at a fresh `spillway serve` in front of
 * it (`serve`).
 *
 * @example
 * const result = await runClient({ spec, mode: 'spillway', bin });
 */
export async function runClient({
  spec,
  mode,
  bin,
  version,
}: {
  spec: ClientSpec;
  mode: ClientRunResult['mode'];
  bin: string;
  version: string;
}): Promise<ClientRunResult> {
  const emulator = await startEmulator({
    profile: spec.profile,
    contextLength: spec.window,
    model: spec.model,
  });
  const home = mkdtempSync(join(tmpdir(), 'spillway-client-'));
  const workspace = join(home, 'work');
  writeTaskFiles(workspace, spec.task);
  const started = performance.now();
  const served =
    mode === 'serve'
      ? // The store named outright: a SPILLWAY_STORE or XDG_DATA_HOME of the caller's would win over HOME.
        await startServe(emulator.url, {
          ...process.env,
          HOME: home,
          SPILLWAY_STORE: join(home, 'sessions.db'),
        })
      : undefined;
  try {
    const setup = spec.setup({ home, upstream: served?.url ?? emulator.url });
    const recording = mode === 'spillway' ? recorder(home, spec.command, bin) : undefined;
    const path = [recording?.dir, bin, process.env.PATH ?? ''].filter((part) => part !== undefined).join(':');
    const env = { ...process.env, ...setup.env, ...recording?.env, PATH: path };
    const { code, output } =
      mode !== 'spillway'
        ? await runProcess(spec.command, setup.args, { cwd: workspace, env })
        : await runProcess(
            process.execPath,
            [
              '--import',
              loader,
              join(root, 'src/cli/bin.ts'),
              'wrap',
              ...setup.wrapFlags,
              spec.command,
              ...setup.args,
            ],
            { cwd: workspace, env },
          );
    const chats = emulator.requests.filter((record) => record.chatNumber !== undefined);
    const answered = chats.filter((record) => record.status === 200);
    const steps = Math.max(0, ...answered.map((record) => (record.replyIndex ?? -1) + 1));
    const completed = code === 0 && output.includes(DONE) && countsWritten(workspace, spec.task);
    const launch = recording === undefined ? undefined : readLaunch(recording.file);
    const toldWindow = launch === undefined ? undefined : spec.toldWindow(launch);
    return {
      client: spec.name,
      package: `${spec.package}@${version}`,
      api: spec.api,
      mode,
      completed,
      exitCode: code,
      steps,
      requests: chats.length,
      overflows: chats.filter((record) => record.overflow !== undefined).length,
      largestPrompt: Math.max(0, ...answered.map((record) => record.promptTokens ?? 0)),
      seconds: Math.round((performance.now() - started) / 100) / 10,
      ...(toldWindow === undefined ? {} : { toldWindow }),
      ...(completed ? {} : { lastOutput: output.trim().split('\n').slice(-3).join('\n').slice(0, 400) }),
    };
  } finally {
    await served?.stop();
    if (process.env.KEEP_RECORDS)
      writeFileSync(process.env.KEEP_RECORDS, JSON.stringify(emulator.requests, null, 1));
    await emulator.close();
    rmSync(home, { recursive: true, force: true });
  }
}
