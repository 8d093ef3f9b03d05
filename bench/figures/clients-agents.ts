/**
 * The real agents through `spillway wrap`, from bench/results/clients-agents.json (written by
 * `npm run clients`): each client directly and through wrap on the same task against an emulator
 * with a small window, and the window wrap told it, read back from what it was given.
 */
import type { ClientRunResult, ClientsResults } from '../../test/real-clients/clients-results.js';
import { count, table } from './format.js';

function outcome(run: ClientRunResult | undefined, steps: number): string {
  if (run === undefined) return 'not run';
  const how = run.completed ? 'completes' : `fails (exit ${run.exitCode})`;
  const overflows =
    run.overflows === 0 ? 'no overflow' : `${run.overflows} overflow${run.overflows === 1 ? '' : 's'}`;
  return `${how}: ${run.steps}/${steps} steps, ${overflows}, largest prompt ${count(run.largestPrompt)}`;
}

/** One row per agent: its emulator's window, direct, through wrap, and the window wrap told it. */
export function agentsTable(results: ClientsResults): string {
  const rows = results.clients.map(({ client, window, believed, profile }) => {
    const runs = results.runs.filter((run) => run.client === client);
    const direct = runs.find((run) => run.mode === 'direct');
    const through = runs.find((run) => run.mode === 'spillway');
    const first = direct ?? through;
    return [
      `${client} (\`${first?.package ?? ''}\`, ${first?.api ?? ''})`,
      `\`${profile}\`: ${count(window)} (client assumes ${count(believed)})`,
      outcome(direct, results.taskSteps),
      outcome(through, results.taskSteps),
      through?.toldWindow === undefined ? 'none' : count(through.toldWindow),
    ];
  });
  return table(
    ['client', 'emulator: enforced window', 'direct', 'through `spillway wrap`', 'window wrap told it'],
    rows,
  );
}
