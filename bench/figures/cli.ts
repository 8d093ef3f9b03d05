/** The README's command examples as the commands printed them (bench/results/cli.json). */
import type { CliRun } from '../cli.js';
import { count, fixed } from './format.js';

export interface CliResult {
  runs: CliRun[];
  example_real_tokens: number;
}

function runOf(result: CliResult, id: string): CliRun {
  const found = result.runs.find((entry) => entry.id === id);
  if (!found) throw new Error(`bench/results/cli.json has no run "${id}": run npm run bench -- cli`);
  return found;
}

/** `$ npx spillway …` and what it printed, for each run, in one shell block. */
function shellBlock(result: CliResult, ids: readonly string[], display?: (run: CliRun) => string): string {
  const lines = ids.flatMap((id) => {
    const run = runOf(result, id);
    return [`$ ${display?.(run) ?? `npx spillway ${run.argv.join(' ')}`}`, run.stdout.trimEnd()];
  });
  return ['```sh', ...lines, '```'].join('\n');
}

export function estimateExample(result: CliResult): string {
  return shellBlock(result, ['estimate']);
}

export function fitExample(result: CliResult): string {
  return shellBlock(result, ['fit', 'fit-small']);
}

export function classifyExample(result: CliResult): string {
  return shellBlock(result, ['classify', 'classify-batch'], (run) => {
    if (run.stdin === undefined) return `npx spillway ${run.argv.join(' ')}`;
    const quoted = run.stdin.replace(/["`\\]/g, (character) => `\\${character}`);
    return `echo "${quoted}" \\\n    | npx spillway ${run.argv.join(' ')}`;
  });
}

/** The example's estimate beside the emulators' real count of the same request. */
export function estimateVersusReal(result: CliResult): string {
  const estimate = (JSON.parse(runOf(result, 'estimate').stdout) as { tokens: number }).tokens;
  return `For the bundled example, \`spillway estimate\` says ${count(estimate)} tokens; the emulators' count of the same request (its chat template, o200k) is ${count(result.example_real_tokens)} (${fixed(estimate / result.example_real_tokens, 2)}×, a code-heavy transcript).`;
}

/** Keeps the lines at `indices` of `list`, in order, with `…` where lines were left out. */
function keepLines(list: string[], indices: number[]): string[] {
  const out: string[] = [];
  let previous = -1;
  for (const index of [...new Set(indices)]
    .filter((value) => value >= 0 && value < list.length)
    .sort((a, b) => a - b)) {
    if (index > previous + 1) out.push('…');
    out.push(list[index] as string);
    previous = index;
  }
  if (previous < list.length - 1) out.push('…');
  return out;
}

/** A demo run's output: the verdict, table and setting as printed, then the per-turn lines `pick` keeps. */
function demoBlock(
  run: CliRun,
  command: string,
  pick: (turns: { plain: string[]; spillway: string[] }) => string[],
): string {
  const [summary = '', perTurn = ''] = run.stdout.trimEnd().split('\nper turn:\n');
  const turns = perTurn.split('\n');
  const shown = pick({
    plain: turns.filter((line) => line.startsWith('plain')),
    spillway: turns.filter((line) => line.startsWith('spillway')),
  });
  return ['```', `$ ${command}`, summary.trimEnd(), '', 'per turn:', ...shown, '```'].join('\n');
}

/**
 * `npm start`, shortened: the verdict, table and setting as printed, then each run's first turn,
 * the plain run's end, the first turn where Spillway cut and the one after, Spillway's last turn.
 */
export function demoTranscript(result: CliResult): string {
  return demoBlock(runOf(result, 'demo'), 'npm start', ({ plain, spillway }) => {
    const firstCut = spillway.findIndex((line) => line.includes('['));
    return [
      ...keepLines(plain, [0, plain.length - 2, plain.length - 1]),
      ...keepLines(spillway, [0, firstCut, firstCut + 1, spillway.length - 1]),
    ];
  });
}

/**
 * `spillway demo --profile ollama`, shortened: the plain run's last turn before the server starts
 * dropping the front of its prompts, the first one it drops and its last, then Spillway's first cut
 * and last turn.
 */
export function demoOllamaTranscript(result: CliResult): string {
  const run = runOf(result, 'demo-ollama');
  return demoBlock(run, `npx spillway ${run.argv.join(' ')}`, ({ plain, spillway }) => {
    const firstDrop = plain.findIndex((line) => line.includes('dropped silently'));
    const firstCut = spillway.findIndex((line) => line.includes('['));
    return [
      ...keepLines(plain, [firstDrop - 1, firstDrop, plain.length - 1]),
      ...keepLines(spillway, [firstCut, spillway.length - 1]),
    ];
  });
}

export function demoJson(result: CliResult): string {
  return ['```json', runOf(result, 'demo-json').stdout.trimEnd(), '```'].join('\n');
}

export interface ChatResult {
  argv: string[];
  screen: string[];
}

/** `spillway chat` as the terminal showed it (bench/results/chat.json). */
export function chatTranscript(result: ChatResult): string {
  return ['```sh', `$ npx spillway ${result.argv.join(' ')}`, ...result.screen, '```'].join('\n');
}
