/** `spillway limits` as `npm run bench -- limits` ran it (limits.json), and the probe's round trip. */
import { fixed } from './format.js';

interface LimitsRun {
  command: string;
  exit: number | null;
  stdout: unknown;
  stderr: unknown;
}

export interface LimitsResult {
  runs: LimitsRun[];
  probe_ms: { median: number; max: number };
}

/** The runs the README shows, in its order, each with what its `$EMULATOR` is. */
const SHOWN: ReadonlyArray<{ command: string; note?: string }> = [
  { command: 'spillway limits --model claude-sonnet-4-5-20250929' },
  {
    command: 'spillway limits --model glm5.2 --base-url $EMULATOR/v1',
    note: 'the litellm-vllm emulator, 0.1 scale',
  },
  { command: 'spillway limits --model qwen2.5:7b --base-url $EMULATOR/v1', note: 'the ollama emulator' },
  { command: 'spillway limits --model gpt-4o --base-url http://127.0.0.1:9' },
];

function runLines(run: LimitsRun, note: string | undefined): string[] {
  const failed = run.exit !== 0;
  const command = `$ npx ${run.command}${failed ? '; echo "exit $?"' : ''}`;
  const lines = [note === undefined ? command : `${command}      # ${note}`];
  if (run.stdout !== null) lines.push(JSON.stringify(run.stdout));
  if (failed) {
    if (run.stderr !== null) lines.push(JSON.stringify(run.stderr));
    lines.push(`exit ${run.exit}`);
  }
  return lines;
}

export function limitsExample(result: LimitsResult): string {
  const lines = SHOWN.flatMap(({ command, note }) => {
    const run = result.runs.find((entry) => entry.command === command);
    if (!run)
      throw new Error(`bench/results/limits.json has no run of "${command}": run npm run bench -- limits`);
    return runLines(run, note);
  });
  return ['```sh', ...lines, '```'].join('\n');
}

export function limitsProbe(result: LimitsResult): string {
  return `The probe's round trip through the \`litellm-vllm\` emulator on loopback: median ${fixed(result.probe_ms.median, 1)} ms, longest ${fixed(result.probe_ms.max, 1)} ms.`;
}
