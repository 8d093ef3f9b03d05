/**
 * The real-client suite: pinned releases of Claude Code, Codex CLI, opencode and pi from the npm
 * registry each run the same multi-step task (look at the directory, read four files, write their
 * line counts) against an emulator whose window is far smaller than the one the client is told,
 * once directly and once through `spillway wrap`. The emulator's generic agent drives each client
 * with the client's own tools. Through Spillway every run completes, and none does worse than the
 * same client direct. `SPILLWAY_UPDATE_RESULTS=1` writes the results to bench/results/clients.json,
 * the file the README's table is made from.
 */
import { writeFileSync } from 'node:fs';
import { cpus, platform, release } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLIENT_SPECS, TASK } from '../real-clients/client-specs.js';
import {
  CLIENTS_RESULTS_PATH,
  type ClientRunResult,
  type ClientsResults,
} from '../real-clients/clients-results.js';
import { CLIENTS_DIR, installClients } from '../real-clients/install-clients.js';
import { runClient } from '../real-clients/run-client.js';

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

describe('real clients, direct and through spillway wrap', () => {
  it('completes the task through Spillway with every client, never worse than direct', async () => {
    const installed = installClients();
    const jobs = CLIENT_SPECS.flatMap((spec) =>
      (['direct', 'spillway'] as const).map(
        (mode) => () =>
          runClient({ spec, mode, bin: installed.bin, version: installed.versions[spec.package] ?? '' }),
      ),
    );
    const runs: ClientRunResult[] = await inParallel(jobs, 2);
    const results: ClientsResults = {
      command: 'npm run clients',
      date: new Date().toISOString(),
      machine: `${platform()} ${release()}, ${cpus().length} cores`,
      node: process.version,
      taskSteps: TASK.steps,
      clients: CLIENT_SPECS.map(({ name, window, believed, profile }) => ({
        client: name,
        window,
        believed,
        profile,
      })),
      runs,
    };
    const text = `${JSON.stringify(results, null, 2)}\n`;
    writeFileSync(join(CLIENTS_DIR, 'clients-run.json'), text);
    if (process.env.SPILLWAY_UPDATE_RESULTS === '1') writeFileSync(CLIENTS_RESULTS_PATH, text);
    for (const spec of CLIENT_SPECS) {
      const direct = runs.find((run) => run.client === spec.name && run.mode === 'direct') as ClientRunResult;
      const through = runs.find(
        (run) => run.client === spec.name && run.mode === 'spillway',
      ) as ClientRunResult;
      expect({ client: spec.name, completed: through.completed, output: through.lastOutput }).toEqual({
        client: spec.name,
        completed: true,
        output: undefined,
      });
      expect(through.steps).toBe(results.taskSteps);
      expect(through.steps).toBeGreaterThanOrEqual(direct.steps);
      expect(through.overflows).toBeLessThanOrEqual(Math.max(direct.overflows, 1));
    }
  }, 1_200_000);
});
