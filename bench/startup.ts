/**
 * The command line's start-up: the CPU time of `spillway --help`, `spillway estimate --help` and
 * `spillway classify` (one error body) beside `node -e 0`, the least a Node process costs, from the
 * built package (built first: dist/ is what `npx spillway` runs).
 *
 * CPU time is the children's user + system time the kernel accounts to this process once each has
 * been waited for (`/proc/self/stat`, in clock ticks: each figure is the total over many runs divided
 * by their number). The commands take turns within every round; each figure is the median over
 * rounds, and each ratio is taken within a round.
 *
 * `npx tsx bench/startup.ts` runs it alone; `npm run bench -- startup` as part of the suite.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { median } from '../test/support/median.js';
import { builtCli, CLOCK_TICKS, ROOT } from './http-load.js';
import { round } from './timing.js';

const CLASSIFY_BODY =
  '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 214365 tokens > 200000 maximum"}}';

/** The processes timed, by name: what runs, and what it reads on standard input. */
export const STARTUP_COMMANDS: Record<string, { argv: string[]; input?: string }> = {
  'node -e 0': { argv: ['-e', '0'] },
  'spillway --help': { argv: ['dist/cli/bin.js', '--help'] },
  'spillway estimate --help': { argv: ['dist/cli/bin.js', 'estimate', '--help'] },
  'spillway classify': { argv: ['dist/cli/bin.js', 'classify', '--status', '400'], input: CLASSIFY_BODY },
};

/** Options of {@link benchStartup}. */
export interface StartupOptions {
  rounds?: number;
  /** Runs of each command per round (their total CPU time, divided by this, is the round's figure). */
  runs?: number;
}

/** One command's figures. */
export interface StartupFigure {
  command: string;
  /** CPU milliseconds per run (user + system), median over rounds. */
  cpuMs: number;
  /** Wall milliseconds per run, median over rounds. */
  wallMs: number;
  /** CPU time over `node -e 0`'s in the same round, the median. */
  vsNode: number;
}

/** The CPU time this process's waited-for children have used, in milliseconds (Linux). */
function childrenCpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
  // After the ")": state is field 3, so cutime (16) and cstime (17) are at 13 and 14.
  return ((Number(fields[13]) + Number(fields[14])) * 1_000) / CLOCK_TICKS;
}

function measure(
  command: { argv: string[]; input?: string },
  runs: number,
): { cpuMs: number; wallMs: number } {
  const cpu = childrenCpuMs();
  const started = performance.now();
  for (let run = 0; run < runs; run++) {
    const result = spawnSync(process.execPath, command.argv, {
      cwd: ROOT,
      input: command.input ?? '',
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    if (result.status !== 0)
      throw new Error(`${command.argv.join(' ')} exited ${result.status}: ${result.stderr.toString()}`);
  }
  return { cpuMs: (childrenCpuMs() - cpu) / runs, wallMs: (performance.now() - started) / runs };
}

/**
 * CPU time of the command line's start-up beside `node -e 0`.
 *
 * @example
 * const result = await benchStartup({ rounds: 5 });
 * console.log(result.figures.find((figure) => figure.command === 'spillway --help')?.vsNode);
 */
export async function benchStartup({
  rounds = 5,
  runs = 20,
}: StartupOptions = {}): Promise<Record<string, unknown>> {
  builtCli();
  const names = Object.keys(STARTUP_COMMANDS);
  const perRound: Array<Record<string, { cpuMs: number; wallMs: number }>> = [];
  for (let index = 0; index < rounds; index++) {
    const round: Record<string, { cpuMs: number; wallMs: number }> = {};
    // A different command starts each round, so a change in the machine's load hits them alike.
    for (let at = 0; at < names.length; at++) {
      const name = names[(at + index) % names.length] as string;
      round[name] = measure(STARTUP_COMMANDS[name] as { argv: string[] }, runs);
    }
    perRound.push(round);
  }
  const figures: StartupFigure[] = names.map((command) => ({
    command,
    cpuMs: round(median(perRound.map((entry) => entry[command]?.cpuMs ?? 0)), 1),
    wallMs: round(median(perRound.map((entry) => entry[command]?.wallMs ?? 0)), 1),
    vsNode: round(
      median(perRound.map((entry) => (entry[command]?.cpuMs ?? 0) / (entry['node -e 0']?.cpuMs ?? 1))),
      2,
    ),
  }));
  return {
    command: 'npm run bench -- startup',
    clock: 'CPU time of the child processes (user + system)',
    rounds,
    runs,
    figures,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rounds = Number(process.env.ROUNDS ?? 5);
  console.log(JSON.stringify(await benchStartup({ rounds }), null, 2));
}
