/**
 * The real-client suite: pinned releases of Claude Code, Codex CLI, opencode and pi from the npm
 * registry each run the same multi-step task (look at the directory, read four files, write their
 * line counts) against an emulator whose window is far smaller than the one the client is told,
 * once directly and once through `spillway wrap`. The emulator's generic agent drives each client
 * with the client's own tools. Through Spillway every run completes, and none does worse than the
 * same client direct. `SPILLWAY_UPDATE_RESULTS=1` writes the results to bench/results/clients.json,
 * the file the README's table is made from.
 */
import { describe, it } from 'vitest';
import { CLIENT_SPECS, TASK } from '../real-clients/client-specs.js';
import { CLIENTS_RESULTS_PATH } from '../real-clients/clients-results.js';
import { expectNoWorseThroughSpillway, measureClients } from '../real-clients/measure-clients.js';

describe('real clients, direct and through spillway wrap', () => {
  it('completes the task through Spillway with every client, never worse than direct', async () => {
    const results = await measureClients({
      specs: CLIENT_SPECS,
      task: TASK,
      command: 'npm run clients',
      resultsPath: CLIENTS_RESULTS_PATH,
    });
    expectNoWorseThroughSpillway(results);
  }, 1_200_000);
});
