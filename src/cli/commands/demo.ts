import { writeFile } from 'node:fs/promises';
import { SpillwayError } from '../../core/index.js';
import {
  DEMO_DEFAULT_PROFILE,
  DEMO_DEFAULT_SCALE,
  DEMO_DEFAULT_TURNS,
  demoReport,
  formatDemoSummary,
  renderDemoHtml,
  runDemo,
} from '../../demo/index.js';
import { PROFILE_NAMES } from '../../emulator/index.js';
import type { Command } from '../command.js';
import { choiceFlag, EXIT_OK, integerFlag, printJson } from '../io.js';

function scaleFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const scale = Number(value);
  if (!Number.isFinite(scale) || scale <= 0 || scale > 10)
    throw new SpillwayError(
      'invalid_argument',
      `--scale must be a number in (0, 10], got ${JSON.stringify(value)}`,
    );
  return scale;
}

export const demoCommand: Command = {
  summary:
    'the embedded default: a scripted agent session against an emulated backend, plain and through Spillway',
  usage: `usage: spillway demo [--profile P] [--turns N] [--scale F] [--json] [--report FILE.html]

Starts a backend emulator in-process (default: ${DEMO_DEFAULT_PROFILE} at ${DEMO_DEFAULT_SCALE} scale: LiteLLM advertises
9,600 input / 9,600 output tokens, vLLM behind it enforces 21,000 on prompt + max_tokens) and runs one
scripted coding session twice: through a plain client (the full transcript, max_tokens = the
advertised cap) and through Spillway (fitted to the discovered limits, recovery on). Prints the
verdict (who completed, who got stuck and why, who lost context to a silent truncation), a
side-by-side summary, the setting, then a line per turn. No network, no API key.

  --profile P        ${PROFILE_NAMES.join(', ')}
  --turns N          assistant turns of the session, the last one the answer (default ${DEMO_DEFAULT_TURNS})
  --scale F          litellm-vllm: scale of its limits (default ${DEMO_DEFAULT_SCALE})
  --json             print {"profile","turns","runs":{"plain":R,"spillway":R},"limits","learned","verdict"} instead
  --report FILE      also write a self-contained HTML page charting each request's prompt + max_tokens`,
  options: {
    profile: { type: 'string' },
    turns: { type: 'string' },
    scale: { type: 'string' },
    json: { type: 'boolean' },
    report: { type: 'string' },
  },
  async run({ values }) {
    const profile =
      choiceFlag(values.profile as string | undefined, 'profile', PROFILE_NAMES) ?? DEMO_DEFAULT_PROFILE;
    const turns = integerFlag(values.turns as string | undefined, 'turns', { min: 2 }) ?? DEMO_DEFAULT_TURNS;
    const scale = scaleFlag(values.scale as string | undefined) ?? DEMO_DEFAULT_SCALE;
    const json = values.json === true;
    const lines: string[] = [];
    // The per-turn lines follow the verdict; a terminal sees each one go by as it happens.
    const live = !json && process.stderr.isTTY === true;
    const result = await runDemo({
      profile,
      turns,
      scale,
      onProgress: (line: string) => {
        lines.push(line);
        if (live) process.stderr.write(`\r\x1b[K${line.slice(0, (process.stderr.columns ?? 80) - 1)}`);
      },
    });
    if (live) process.stderr.write('\r\x1b[K');
    const report = values.report as string | undefined;
    if (report !== undefined) {
      try {
        await writeFile(report, renderDemoHtml(result));
      } catch (error) {
        throw new SpillwayError(
          'invalid_argument',
          `cannot write the report to ${report}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
          { cause: error },
        );
      }
    }
    if (json) printJson(demoReport(result));
    else {
      process.stdout.write(formatDemoSummary(result));
      if (report !== undefined) process.stdout.write(`  report: ${report}\n`);
      process.stdout.write(`\nper turn:\n${lines.join('\n')}\n`);
    }
    return EXIT_OK;
  },
};
