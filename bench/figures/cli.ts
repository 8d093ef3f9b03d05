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

/**
 * The demo's output, shortened: each run's first turn, the plain run's end, the first turn where
 * Spillway cut and the one after, Spillway's last turn, then the summary as printed.
 */
export function demoTranscript(result: CliResult): string {
  const lines = runOf(result, 'demo').stdout.trimEnd().split('\n');
  const blank = lines.indexOf('');
  const turns = lines.slice(0, blank);
  const plain = turns.filter((line) => line.startsWith('plain'));
  const spillway = turns.filter((line) => line.startsWith('spillway'));
  const firstCut = spillway.findIndex((line) => line.includes('['));
  const keep = (list: string[], indices: number[]) => {
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
  };
  const shown = [
    ...keep(plain, [0, plain.length - 2, plain.length - 1]),
    ...keep(spillway, [0, firstCut, firstCut + 1, spillway.length - 1]),
  ];
  return ['```', '$ npm start', ...shown, ...lines.slice(blank), '```'].join('\n');
}

export function demoJson(result: CliResult): string {
  return ['```json', runOf(result, 'demo-json').stdout.trimEnd(), '```'].join('\n');
}
