import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createRunCommandTool } from './run-command-tool.js';

const root = mkdtempSync(join(tmpdir(), 'spillway-run-'));

/** Whether a process is still running (a zombie waiting to be reaped counts as gone). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return true;
  }
}

/** Polls until the process is gone; false if it is still there after `patience` checks. */
async function gone(pid: number, patience = 100): Promise<boolean> {
  for (let check = 0; check < patience; check++) {
    if (!running(pid)) return true;
    await sleep(50);
  }
  return false;
}

const pidIn = (text: string): number => Number(/pid (\d+)/.exec(text)?.[1]);

describe('run_command', () => {
  it('runs in the project directory after the user allows it, with the exit code', async () => {
    const tool = createRunCommandTool({ root, confirm: async () => true });
    const output = await tool.execute({ command: 'pwd; echo oops >&2; exit 3' }, { callId: 'c' });
    expect(output).toBe(`${root}\noops\n[exit code 3]`);
  });

  it('keeps the start and the end of a long output within the output limit', async () => {
    const tool = createRunCommandTool({
      root,
      confirm: async () => true,
      outputLimit: { tokens: () => 400 },
    });
    const output = (await tool.execute({ command: 'seq 1 5000' }, { callId: 'c' })) as string;
    expect(output).toMatch(/^1\n2\n/);
    expect(output).toMatch(/lines of output cut …\]\n/);
    expect(output).toMatch(/\n5000\n\[exit code 0\]$/);
    expect(output.split('\n').length).toBeLessThan(400);
  });

  it('cuts a one-line output of 160 KB by characters, so the model gets its start', async () => {
    const tool = createRunCommandTool({
      root,
      confirm: async () => true,
      outputLimit: { tokens: () => 2_000 },
    });
    const output = (await tool.execute(
      { command: "yes 'var a=1;' | head -n 20000 | tr -d '\\n'" },
      { callId: 'c' },
    )) as string;
    expect(output).toMatch(/(var a=1;){200}.* \[… [\d,]+ more characters on this line\]\n\[exit code 0\]$/);
    expect(output.length).toBeLessThan(3_000);
  });

  it('does nothing when the user refuses', async () => {
    let asked = '';
    const tool = createRunCommandTool({
      root,
      confirm: async ({ summary }) => {
        asked = summary;
        return false;
      },
    });
    await expect(tool.execute({ command: 'touch x' }, { callId: 'c' })).rejects.toThrow(
      /did not allow running "touch x"/,
    );
    expect(asked).toBe('run touch x');
  });

  it('streams the output as it arrives', async () => {
    const chunks: Array<{ callId: string; text: string }> = [];
    const tool = createRunCommandTool({
      root,
      confirm: async () => true,
      onOutput: (chunk) => chunks.push(chunk),
    });
    await tool.execute({ command: 'echo one; echo two >&2' }, { callId: 'call_9' });
    expect(chunks.map((chunk) => chunk.text).join('')).toBe('one\ntwo\n');
    expect(new Set(chunks.map((chunk) => chunk.callId))).toEqual(new Set(['call_9']));
  });

  it('returns when the shell exits, and stops what it left in the background', async () => {
    const tool = createRunCommandTool({ root, confirm: async () => true });
    const output = (await tool.execute({ command: 'sleep 170 & echo "pid $!"' }, { callId: 'c' })) as string;
    expect(output).toMatch(/^pid \d+\n\[exit code 0; processes it left running were stopped\]$/);
    expect(await gone(pidIn(output))).toBe(true);
  });

  it('stops the whole process group at the limit', async () => {
    const tool = createRunCommandTool({ root, confirm: async () => true, timeoutMs: 300 });
    const output = (await tool.execute(
      { command: 'sleep 170 & echo "pid $!"; wait' },
      { callId: 'c' },
    )) as string;
    expect(output).toMatch(/^pid \d+\n\[stopped after 0.3 s, the command limit/);
    expect(await gone(pidIn(output))).toBe(true);
  });

  it('stops the whole process group when the turn is cancelled', async () => {
    const controller = new AbortController();
    let printed = '';
    const tool = createRunCommandTool({
      root,
      confirm: async () => true,
      onOutput: ({ text }) => {
        printed += text;
        if (printed.includes('\n')) controller.abort();
      },
    });
    const running = tool.execute(
      { command: 'sh -c "sleep 170" & echo "pid $!"; wait' },
      { callId: 'c', signal: controller.signal },
    );
    await expect(running).rejects.toThrow(/cancelled/);
    expect(await gone(pidIn(printed))).toBe(true);
  });
});
