/**
 * The real-client suite: pinned releases of Claude Code, Codex CLI, opencode, pi and Gemini CLI from
 * the npm registry, each on its default provider path (Codex's built-in provider, opencode and pi
 * with the provider their --model names, Claude Code and Gemini CLI through their base-URL
 * variables), run the same multi-step task (look at the directory, read four files, write their
 * line counts) against an emulator whose window is far smaller than the one the client is told,
 * once directly and once through `spillway wrap`. The emulator's generic agent drives each client
 * with the client's own tools. Through Spillway every run completes, none does worse than the same
 * client direct, and each client was told the emulator's window in its own setting (read back from
 * what it was given at launch; Codex on its built-in provider is told none, see docs/agents.md). `SPILLWAY_UPDATE_RESULTS=1` writes the results to
 * bench/results/clients-agents.json, the file docs/agents.md's table is made from.
 */
import { describe, it } from 'vitest';
import { CLIENT_SPECS, TASK } from '../real-clients/client-specs.js';
import { AGENTS_RESULTS_PATH } from '../real-clients/clients-results.js';
import {
  expectNoWorseThroughSpillway,
  expectToldTheWindow,
  measureClients,
} from '../real-clients/measure-clients.js';

describe('real clients, direct and through spillway wrap', () => {
  it('completes the task through Spillway with every client told its window, never worse than direct', async () => {
    const results = await measureClients({
      specs: CLIENT_SPECS,
      task: TASK,
      command: 'npm run clients',
      resultsPath: AGENTS_RESULTS_PATH,
    });
    expectNoWorseThroughSpillway(results);
    expectToldTheWindow(results, CLIENT_SPECS);
  }, 1_800_000);
});
