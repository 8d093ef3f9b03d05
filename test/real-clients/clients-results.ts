/**
 * The client suite's results (`bench/results/clients.json`, `bench/results/clients-pi-small-window.json`)
 * and the docs/agents.md tables made from them. Each table is exactly {@link renderClientsTable} of its
 * committed file; a test checks it.
 */
import { readFileSync } from 'node:fs';

/** One client's run on the task, directly or through Spillway. */
export interface ClientRunResult {
  client: string;
  /** `name@version`, as installed from the registry. */
  package: string;
  api: string;
  /** Directly, through `spillway wrap`, or pointed at a fresh `spillway serve`. */
  mode: 'direct' | 'spillway' | 'serve';
  /** Exit 0, the final answer given, and the line counts of every file written. */
  completed: boolean;
  exitCode: number;
  /** Steps of the task answered (the generic agent's replies: look, read each file, write, answer). */
  steps: number;
  requests: number;
  /** Requests the emulator rejected as over its window. */
  overflows: number;
  /** The largest prompt the emulator accepted, in its tokens. */
  largestPrompt: number;
  seconds: number;
  /** Through `spillway wrap`: the window the client was told, read back from what it was given. */
  toldWindow?: number;
  /** The end of the client's output, when it did not complete. */
  lastOutput?: string;
}

/** The committed results file. */
export interface ClientsResults {
  command: string;
  date: string;
  machine: string;
  node: string;
  /** The steps a complete run answers: looking, one read per file, writing the counts, the answer. */
  taskSteps: number;
  clients: { client: string; window: number; believed: number; profile: string }[];
  runs: ClientRunResult[];
}

/** Where the results are committed. */
export const CLIENTS_RESULTS_PATH = new URL('../../bench/results/clients.json', import.meta.url);
/**
 * Where the results of every agent on its default provider path, told its window by `spillway
 * wrap` (Claude Code, Codex CLI, opencode, pi, Gemini CLI), are committed; docs/agents.md shows them.
 */
export const AGENTS_RESULTS_PATH = new URL('../../bench/results/clients-agents.json', import.meta.url);
/** Where the results of pi with a small window on the long task are committed. */
export const PI_SMALL_WINDOW_RESULTS_PATH = new URL(
  '../../bench/results/clients-pi-small-window.json',
  import.meta.url,
);

/**
 * The README's client tables, each between `<!-- marker:start -->` and `<!-- marker:end -->`, and
 * the committed results each is made from.
 */
export const CLIENTS_TABLES: readonly { marker: string; path: URL }[] = [
  { marker: 'clients-table', path: CLIENTS_RESULTS_PATH },
  { marker: 'clients-pi-small-window', path: PI_SMALL_WINDOW_RESULTS_PATH },
];

export function readClientsResults(path: URL = CLIENTS_RESULTS_PATH): ClientsResults {
  return JSON.parse(readFileSync(path, 'utf8')) as ClientsResults;
}

const count = (value: number): string => value.toLocaleString('en-US');

function cell(run: ClientRunResult | undefined, taskSteps: number): string {
  if (run === undefined) return 'not run';
  const outcome = run.completed ? 'completes' : `fails (exit ${run.exitCode})`;
  const overflows =
    run.overflows === 0 ? 'no overflow' : `${run.overflows} overflow${run.overflows === 1 ? '' : 's'}`;
  return `${outcome}: ${run.steps}/${taskSteps} steps, ${overflows}, largest prompt ${count(run.largestPrompt)}`;
}

/**
 * The README table of the results committed at `path`: one row per client, its direct run and its
 * run through `spillway wrap`, with the measuring command, machine and date under it.
 */
export function renderClientsTable(results: ClientsResults, path: URL = CLIENTS_RESULTS_PATH): string {
  const serve = results.runs.some((run) => run.mode === 'serve');
  const rows = results.clients.map(({ client, window, believed, profile }) => {
    const runs = results.runs.filter((run) => run.client === client);
    const direct = runs.find((run) => run.mode === 'direct');
    const through = runs.find((run) => run.mode === 'spillway');
    const first = direct ?? through;
    const served = serve
      ? ` ${cell(
          runs.find((run) => run.mode === 'serve'),
          results.taskSteps,
        )} |`
      : '';
    return `| ${client} (\`${first?.package ?? ''}\`, ${first?.api ?? ''}) | \`${profile}\`: ${count(window)} (client told ${count(believed)}) | ${cell(direct, results.taskSteps)} | ${cell(through, results.taskSteps)} |${served}`;
  });
  return [
    `| client | emulator: enforced window | direct | through \`spillway wrap\` |${serve ? ' through a fresh `spillway serve` |' : ''}`,
    `| --- | --- | --- | --- |${serve ? ' --- |' : ''}`,
    ...rows,
    '',
    `Measured by \`${results.command}\` on ${results.machine}, Node ${results.node}, ${results.date.slice(0, 10)} (\`bench/results/${path.pathname.split('/').at(-1)}\`).`,
  ].join('\n');
}
