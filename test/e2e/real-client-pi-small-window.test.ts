/**
 * pi with its window set wrong: its models.json says 32,768 tokens, the vLLM emulator enforces
 * 8,192. The model id names Qwen, whose tokenizer Spillway has, while the server counts with o200k:
 * a tokenizer guessed from the id must not be taken for the server's count. The task takes 12 steps
 * (look at the directory, read nine 300-line files, write their line counts, answer), so the
 * conversation outgrows the window several times over. Direct, pi stops at the server's first
 * rejection; through `spillway wrap`, and pointed at a fresh `spillway serve` (its default store
 * new, so nothing is left from other runs), it completes every step.
 * `SPILLWAY_UPDATE_RESULTS=1` writes the results to bench/results/clients-pi-small-window.json.
 */
import { describe, it } from 'vitest';
import { PI_SMALL_WINDOW_SPEC } from '../real-clients/client-specs.js';
import { PI_SMALL_WINDOW_RESULTS_PATH } from '../real-clients/clients-results.js';
import { expectNoWorseThroughSpillway, measureClients } from '../real-clients/measure-clients.js';

describe('pi told 32k against an 8k server that counts with another tokenizer', () => {
  it('completes the 12-step task through spillway wrap and through a fresh spillway serve', async () => {
    const results = await measureClients({
      specs: [PI_SMALL_WINDOW_SPEC],
      task: PI_SMALL_WINDOW_SPEC.task,
      command: 'npm run clients:pi-small-window',
      resultsPath: PI_SMALL_WINDOW_RESULTS_PATH,
      modes: ['direct', 'spillway', 'serve'],
    });
    expectNoWorseThroughSpillway(results);
  }, 900_000);
});
