/**
 * The README's command examples print what bench/results/cli.json holds (which the README's
 * generated sections show): when the code changes what a command prints, this fails until
 * `npm run bench -- cli && npm run readme:figures` records it. The demo, which takes seconds a run,
 * is left to `npm run bench -- cli` and test/e2e/demo-cli.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI_COMMANDS, type CliRun, runCommand } from '../../bench/cli.js';

const recorded = JSON.parse(
  readFileSync(new URL('../../bench/results/cli.json', import.meta.url), 'utf8'),
) as {
  runs: CliRun[];
};

describe('the README command examples', () => {
  it('print what bench/results/cli.json recorded (else run npm run bench -- cli && npm run readme:figures)', async () => {
    const commands = CLI_COMMANDS.filter((command) => command.argv[0] !== 'demo');
    expect(commands.length).toBeGreaterThanOrEqual(5);
    const runs = await Promise.all(commands.map((command) => runCommand(command)));
    for (const run of runs) {
      const before = recorded.runs.find((entry) => entry.id === run.id);
      expect({ stdout: run.stdout, exit: run.exit }, run.id).toEqual({
        stdout: before?.stdout,
        exit: before?.exit,
      });
    }
  }, 60_000);
});
