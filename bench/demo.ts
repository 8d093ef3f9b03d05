/**
 * `spillway demo` as the README quotes it: the default 30-turn session and the 16-turn one, both
 * against `litellm-vllm` at 0.1 scale (LiteLLM claims 9,600 / 9,600, vLLM enforces 21,000), each
 * with the JSON `spillway demo --json` prints. The runs are deterministic (seeded emulator, scripted
 * session), so the figures do not depend on the machine.
 *
 * `npm run bench -- demo`.
 */
import { type DemoReport, demoReport, runDemo } from '../src/demo/index.js';

interface DemoBenchRun extends DemoReport {
  command: string;
}

/** Runs the demo the ways the README shows it. */
export async function benchDemo(): Promise<{ runs: DemoBenchRun[] }> {
  const runs: DemoBenchRun[] = [];
  for (const turns of [30, 16]) {
    const result = await runDemo({ profile: 'litellm-vllm', turns });
    runs.push({
      command: `spillway demo --profile litellm-vllm --turns ${turns} --json`,
      ...demoReport(result),
    });
  }
  return { runs };
}
