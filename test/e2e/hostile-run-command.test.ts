/**
 * Commands that try to outlive `run_command`: a child moved to a session of its own with `setsid`
 * (out of the command's process group, under PID 1 once its parent exits), a daemon that forks
 * itself off with `setsid -f`, on the command's normal end and at its time limit. After the tool
 * call returns, none of them may be running; whatever a failed check leaves behind is killed by the
 * test itself.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createRunCommandTool } from '../../src/chat/run-command-tool.js';
import { recordHostile, writeHostileResults } from '../support/hostile-results.js';
import { runProcess } from '../support/run-process.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const loader = join(repo, 'node_modules', 'tsx', 'dist', 'loader.mjs');

const root = mkdtempSync(join(tmpdir(), 'spillway-hostile-run-'));
const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0))
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone, as it should be.
    }
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  writeHostileResults(fileURLToPath(import.meta.url));
});

/** Whether a process is running (a zombie waiting to be reaped counts as gone). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

const pidsIn = (text: string): number[] => [...text.matchAll(/pid (\d+)/g)].map((match) => Number(match[1]));

async function run(command: string, timeoutMs = 30_000): Promise<{ output: string; survivors: number }> {
  const tool = createRunCommandTool({ root, confirm: async () => true, timeoutMs });
  const output = (await tool.execute({ command }, { callId: 'c' })) as string;
  const pids = [...pidsIn(output), ...pidsIn(readPidFile())];
  expect(pids.length).toBeGreaterThan(0);
  started.push(...pids);
  const survivors = pids.filter(running).length;
  recordHostile('escaping_commands', { commands: 1, survivors });
  return { output, survivors };
}

function readPidFile(): string {
  try {
    return readFileSync(join(root, 'daemon.pid'), 'utf8');
  } catch {
    return '';
  } finally {
    rmSync(join(root, 'daemon.pid'), { force: true });
  }
}

describe.skipIf(process.platform !== 'linux')('processes that leave run_command’s process group', () => {
  it('a setsid child is stopped when the command ends', async () => {
    const { output, survivors } = await run(`setsid sh -c 'sleep 300 & echo "pid $!"'`);
    expect(output).toMatch(/pid \d+/);
    expect(survivors).toBe(0);
  });

  it('a setsid child is stopped at the time limit', async () => {
    const { output, survivors } = await run(`setsid sh -c 'sleep 300 & echo "pid $!"'; sleep 300`, 1_000);
    expect(output).toMatch(/stopped after 1 s, the command limit/);
    expect(survivors).toBe(0);
  });

  it('the call returns at the time limit in a process with nothing else to wait for', async () => {
    // Once the command's pipes are closed, only the tool's own stopping keeps Node running: a wait
    // on an unref'd timer there let the process exit (code 13) with the call unsettled.
    const script = join(root, 'limit.mts');
    writeFileSync(
      script,
      [
        `import { createRunCommandTool } from ${JSON.stringify(join(repo, 'src/chat/run-command-tool.ts'))};`,
        `const tool = createRunCommandTool({ root: ${JSON.stringify(root)}, confirm: async () => true, timeoutMs: 1_000 });`,
        `const output = await tool.execute({ command: "setsid -f sh -c 'echo \\"pid $$\\" > daemon.pid; exec sleep 300'; sleep 300" }, { callId: 'c' });`,
        'console.log(JSON.stringify(output));',
      ].join('\n'),
    );
    const { status, stdout } = await runProcess(process.execPath, ['--import', loader, script], {
      cwd: repo,
      input: '',
    });
    started.push(...pidsIn(readPidFile()));
    expect(status).toBe(0);
    expect(stdout).toMatch(/stopped after 1 s, the command limit/);
    expect(started.filter(running)).toEqual([]);
  });

  it('a daemon that forks itself off with setsid -f is stopped', async () => {
    const { survivors } = await run(
      `setsid -f sh -c 'echo "pid $$" > daemon.pid; exec sleep 300'; sleep 0.2`,
    );
    expect(survivors).toBe(0);
  });
});
