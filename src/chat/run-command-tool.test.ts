import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRunCommandTool } from './run-command-tool.js';

const root = mkdtempSync(join(tmpdir(), 'spillway-run-'));

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

  it('ends the process when the turn is cancelled', async () => {
    const controller = new AbortController();
    const tool = createRunCommandTool({ root, confirm: async () => true });
    const running = tool.execute({ command: 'sleep 30' }, { callId: 'c', signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(running).rejects.toThrow(/cancelled/);
  });
});
