/**
 * `spillway limits` as the README quotes it, run as a command against the emulators on loopback:
 * LiteLLM in front of vLLM (probed, and with `--no-probe`), Ollama, a port nothing answers on, and
 * a catalog model. Each run records the command (the emulator's address written `$EMULATOR`), the
 * exit code, standard output and standard error; the probe's round trip is timed apart.
 *
 * `npm run bench -- limits`.
 */
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../src/emulator/index.js';
import { probeLimits } from '../src/models/index.js';
import { runProcess } from '../test/support/run-process.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsx = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));

interface LimitsRun {
  command: string;
  exit: number | null;
  stdout: unknown;
  stderr: unknown;
}

function spillway(args: string[]): Promise<{ exit: number | null; stdout: string; stderr: string }> {
  return runProcess(tsx, ['src/cli/bin.ts', 'limits', '--no-store', ...args], { cwd: root }).then(
    ({ status, stdout, stderr }) => ({ exit: status, stdout, stderr }),
  );
}

const json = (text: string): unknown => (text.trim() === '' ? null : JSON.parse(text));

/** Runs every quoted command; the probe alone is timed over 20 rounds on loopback. */
export async function benchLimits(): Promise<{
  runs: LimitsRun[];
  probe_ms: { median: number; max: number };
}> {
  const litellm = await startEmulator({ profile: 'litellm-vllm', port: 0, scale: 0.1 });
  const ollama = await startEmulator({ profile: 'ollama', port: 0 });
  const cases: Array<{ args: string[]; url?: string }> = [
    { args: ['--model', 'glm5.2', '--base-url', `${litellm.url}/v1`], url: litellm.url },
    { args: ['--model', 'glm5.2', '--base-url', `${litellm.url}/v1`, '--no-probe'], url: litellm.url },
    { args: ['--model', 'qwen2.5:7b', '--base-url', `${ollama.url}/v1`], url: ollama.url },
    { args: ['--model', 'gpt-4o', '--base-url', 'http://127.0.0.1:9'] },
    { args: ['--model', 'claude-sonnet-4-5-20250929'] },
  ];
  const runs: LimitsRun[] = [];
  try {
    for (const { args, url } of cases) {
      const { exit, stdout, stderr } = await spillway(args);
      const hide = (text: string) => (url === undefined ? text : text.split(url).join('$EMULATOR'));
      runs.push({
        command: hide(`spillway limits ${args.join(' ')}`),
        exit,
        stdout: json(hide(stdout)),
        stderr: json(hide(stderr)),
      });
    }
    const times: number[] = [];
    for (let round = 0; round < 20; round++) {
      const started = performance.now();
      await probeLimits({ baseUrl: litellm.url, model: 'glm5.2' });
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const round = (value: number) => Math.round(value * 10) / 10;
    return { runs, probe_ms: { median: round(times[10] as number), max: round(times.at(-1) as number) } };
  } finally {
    await Promise.all([litellm.close(), ollama.close()]);
  }
}
