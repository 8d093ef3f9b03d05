/**
 * One measurement of the client suite: every spec's client run directly and through
 * `spillway wrap`, two runs at a time, stamped with the command, date, machine and Node that made
 * it. The copy of the last run goes to `.clients/`; `SPILLWAY_UPDATE_RESULTS=1` writes the committed
 * results file too. {@link expectNoWorseThroughSpillway} is the suite's verdict on a measurement.
 */
import { writeFileSync } from 'node:fs';
import { cpus, platform, release } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { ClientSpec, ClientTask } from './client-specs.js';
import type { ClientRunResult, ClientsResults } from './clients-results.js';
import { CLIENTS_DIR, installClients } from './install-clients.js';
import { runClient } from './run-client.js';

/** Runs the jobs `width` at a time; the results in the jobs' order. */
async function inParallel<T>(jobs: (() => Promise<T>)[], width: number): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < jobs.length) {
      const index = next++;
      results[index] = await (jobs[index] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: width }, lane));
  return results;
}

/**
 * Runs `specs` (all on `task`) directly and through Spillway and returns the stamped results.
 *
 * @example
 * const results = await measureClients({ specs: CLIENT_SPECS, task: TASK, command: 'npm run clients', resultsPath: CLIENTS_RESULTS_PATH });
 */
export async function measureClients({
  specs,
  task,
  command,
  resultsPath,
  modes = ['direct', 'spillway'],
}: {
  specs: readonly ClientSpec[];
  task: ClientTask;
  /** How each client is run (default directly and through `spillway wrap`). */
  modes?: readonly ClientRunResult['mode'][];
  /** The command that re-measures and writes `resultsPath`. */
  command: string;
  resultsPath: URL;
}): Promise<ClientsResults> {
  const installed = installClients();
  const jobs = specs.flatMap((spec) =>
    modes.map(
      (mode) => () =>
        runClient({ spec, mode, bin: installed.bin, version: installed.versions[spec.package] ?? '' }),
    ),
  );
  const runs: ClientRunResult[] = await inParallel(jobs, 2);
  const results: ClientsResults = {
    command,
    date: new Date().toISOString(),
    machine: `${platform()} ${release()}, ${cpus().length} cores`,
    node: process.version,
    taskSteps: task.steps,
    clients: specs.map(({ name, window, believed, profile }) => ({
      client: name,
      window,
      believed,
      profile,
    })),
    runs,
  };
  const text = `${JSON.stringify(results, null, 2)}\n`;
  const runCopy = basename(fileURLToPath(resultsPath)).replace(/\.json$/, '-run.json');
  writeFileSync(join(CLIENTS_DIR, runCopy), text);
  if (process.env.SPILLWAY_UPDATE_RESULTS === '1') writeFileSync(resultsPath, text);
  return results;
}

/**
 * The suite's verdict: through Spillway every client completes all the task's steps, answers no
 * fewer than directly, and meets no more overflows than directly (one at most where direct met none).
 */
export function expectNoWorseThroughSpillway(results: ClientsResults): void {
  for (const { client } of results.clients) {
    const direct = results.runs.find(
      (run) => run.client === client && run.mode === 'direct',
    ) as ClientRunResult;
    const throughs = results.runs.filter((run) => run.client === client && run.mode !== 'direct');
    for (const through of throughs) {
      expect({
        client,
        mode: through.mode,
        completed: through.completed,
        output: through.lastOutput,
      }).toEqual({
        client,
        mode: through.mode,
        completed: true,
        output: undefined,
      });
      expect(through.steps).toBe(results.taskSteps);
      expect(through.steps).toBeGreaterThanOrEqual(direct.steps);
      expect(through.overflows).toBeLessThanOrEqual(Math.max(direct.overflows, 1));
    }
  }
}

/**
 * Every client run through `spillway wrap` was told the window its emulator enforces, read back from
 * what it was given; a spec marked `told: false` was told none.
 */
export function expectToldTheWindow(results: ClientsResults, specs: readonly ClientSpec[]): void {
  for (const spec of specs) {
    const through = results.runs.find((run) => run.client === spec.name && run.mode === 'spillway');
    const expected = spec.told === false ? undefined : spec.window;
    expect({ client: spec.name, told: through?.toldWindow }).toEqual({ client: spec.name, told: expected });
  }
}
