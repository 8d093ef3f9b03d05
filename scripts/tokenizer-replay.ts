/**
 * Replays the `kept` evaluation's trajectories at one window through a driver given the model's
 * tokenizer, as `spillway serve` and `spillway chat` run it, against the replay provider (the
 * emulators' ChatML template, o200k). Prints, per run, whether the tokenizer was demoted by its
 * check against the provider's reports, counted a request once verified, or was never asked, and
 * every step refused, with the provider's count of its smallest
 * request (the head and the newest turn) beside the most the window holds next to the reply.
 *
 * Run: `npx tsx scripts/tokenizer-replay.ts [window=4096]`. A diagnostic: nothing is written.
 */
import { asTranscript, maxTokensFor } from '../eval/kept/replay-strategies.js';
import { readTrajectories } from '../eval/kept/trajectories.js';
import { exactCounterFor } from '../src/tokenizers/index.js';
import { replayTranscript } from '../test/support/transcript-replay/index.js';

const window = Number(process.argv[2] ?? 4_096);
if (!Number.isInteger(window) || window < 1_024) {
  console.error(`the window must be a whole number of tokens, at least 1024 (got ${process.argv[2]})`);
  process.exit(2);
}
const tokenizer = await exactCounterFor('gpt-4o');
if (!tokenizer) {
  console.error('gpt-tokenizer is not installed: npm install');
  process.exit(1);
}
const maxTokens = maxTokensFor(window);
const limit = window - maxTokens;
const ended: Record<string, number> = {};
let steps = 0;
let refused = 0;
let refusedUnderLimit = 0;
for (const trajectory of readTrajectories()) {
  const transcript = asTranscript(trajectory);
  let status = 'never asked';
  const run = await replayTranscript({
    transcript,
    window,
    maxTokens,
    driver: {
      tokenizer,
      onEvent: (event) => {
        if (event.type === 'notice' && event.notice.code === 'tokenizer_demoted') status = 'demoted';
      },
    },
  });
  // A verified tokenizer is asked only when the anchored or calibrated count cannot place a request.
  if (status !== 'demoted' && run.sends.some((send) => send.fit.countSource === 'exact')) status = 'counted';
  ended[status] = (ended[status] ?? 0) + 1;
  steps += run.steps.length;
  const lines: string[] = [];
  for (const step of run.steps) {
    if (step.outcome !== 'context_truncated') continue;
    refused++;
    if ((step.smallestTokens ?? 0) <= limit) refusedUnderLimit++;
    lines.push(
      `  step ${step.step}: refused; smallest request ${step.smallestTokens} tokens (limit ${limit})`,
    );
  }
  console.log(`${trajectory.name} (${trajectory.split}): tokenizer ${status}`);
  for (const line of lines) console.log(line);
}
console.log(
  JSON.stringify({
    window,
    runs: readTrajectories().length,
    tokenizer: ended,
    steps,
    refused,
    refusedUnderLimit,
  }),
);
