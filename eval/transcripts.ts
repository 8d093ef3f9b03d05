/**
 * Real agent sessions replayed through the driver at small windows (`npm run eval -- eval-transcripts`).
 *
 * Each fixture of test/fixtures/transcripts (recorded sessions with the provider's per-step usage; the
 * README there names their sources) is replayed step by step at each window: every request carries the
 * recorded history up to the step, as the agent sent it; the driver fits it; the replay provider counts
 * it with the emulator's chat template and o200k, rejects it with OpenAI's wording when it is over the
 * window, and otherwise answers with the recorded reply and reports its count as usage. The last window
 * is the recorded models' own (200,000 tokens, Anthropic's documented window for Claude Sonnet 4.5 and
 * Opus 4.5), where every fixture fits.
 *
 * The recorded usage is the model's own count of a request that also carried the agent's system prompt
 * and tool schemas, which the session files do not record; `recorded` compares it with the provider's
 * count of the same history, so the gap between the two counts is stated, not hidden.
 */
import { readdirSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { median } from '../test/support/median.js';
import {
  CACHED_INPUT_PRICE,
  countRequest,
  REPLAY_MAX_TOKENS,
  REPLAY_MODEL,
  type ReplayMetrics,
  readTranscript,
  recordedPromptTokens,
  replayMetrics,
  replayTranscript,
  type Transcript,
} from '../test/support/transcript-replay/index.js';

export const REPLAY_WINDOWS = [8_192, 16_384, 32_768, 200_000] as const;

/** The `cutRunway` settings the trade-off table replays at the windows where cuts happen. */
export const FRONTIER_RUNWAYS = [0, 1, 2, 3, 5, 8, 13] as const;
const FRONTIER_WINDOWS = [8_192, 16_384, 32_768] as const;

/** One `cutRunway` at one window, over every fixture. */
export interface FrontierPoint {
  window: number;
  runway: number;
  /** Prefix kept: lowest and median over the fixtures. */
  prefixKept: { min: number; median: number };
  /** Median over the fixtures of each run's median window use of pruned requests. */
  windowUse: number;
  worstCutsPerSend: number;
  /** Input per step, cached at the cached-input price, mean over the fixtures. */
  pricedPerStep: number;
  rejected: number;
  overWindow: number;
}

const FIXTURES = new URL('../test/fixtures/transcripts/', import.meta.url);

/** The recorded prompt tokens of each step against the provider's count of the same history. */
function recordedAgainstReplay(transcript: Transcript) {
  const recorded = transcript.steps.map((step) => recordedPromptTokens(step.usage));
  const replayed = transcript.steps.map((step) =>
    countRequest({ format: 'openai', messages: transcript.messages.slice(0, step.at), tools: [], extra: {} }),
  );
  return {
    steps: transcript.steps.length,
    models: [...new Set(transcript.steps.map((step) => step.model ?? 'unknown'))],
    recordedPromptTokens: { first: recorded[0] ?? 0, median: median(recorded), max: Math.max(...recorded) },
    replayedPromptTokens: { first: replayed[0] ?? 0, median: median(replayed), max: Math.max(...replayed) },
    /** Recorded minus replayed, median: the system prompt and tool schemas the files lack, and the tokenizer gap. */
    medianGap: median(recorded.map((value, index) => value - (replayed[index] ?? 0))),
    /** Recorded / replayed for the growth between consecutive steps (history appended), median. */
    medianGrowthRatio: median(
      recorded
        .slice(1)
        .map((value, index) => {
          const grown = (replayed[index + 1] ?? 0) - (replayed[index] ?? 0);
          return grown > 200 ? (value - (recorded[index] ?? 0)) / grown : Number.NaN;
        })
        .filter((ratio) => Number.isFinite(ratio)),
    ),
  };
}

/** Replays every fixture at each small window with each runway: what each setting trades. */
async function runwayFrontier(transcripts: Transcript[]): Promise<FrontierPoint[]> {
  const points: FrontierPoint[] = [];
  for (const window of FRONTIER_WINDOWS)
    for (const runway of FRONTIER_RUNWAYS) {
      const runs: ReplayMetrics[] = [];
      for (const transcript of transcripts)
        runs.push(
          replayMetrics(await replayTranscript({ transcript, window, driver: { cutRunway: runway } })),
        );
      const kept = runs.map((run) => run.prefixRetention);
      points.push({
        window,
        runway,
        prefixKept: { min: Math.min(...kept), median: median(kept) },
        windowUse: median(runs.map((run) => run.cutUtilization?.median ?? 1)),
        worstCutsPerSend: Math.max(...runs.map((run) => run.cutsPerSend)),
        pricedPerStep: runs.reduce((sum, run) => sum + run.pricedPerStep, 0) / runs.length,
        rejected: runs.reduce(
          (sum, run) => sum + run.rejected.context + run.rejected.budget + run.rejected.output_cap,
          0,
        ),
        overWindow: runs.reduce((sum, run) => sum + run.overWindow, 0),
      });
    }
  return points;
}

/** Replays every fixture at every window; prints the table and returns the figures. */
export async function evalTranscripts() {
  const files = readdirSync(FIXTURES)
    .filter((file) => file.endsWith('.jsonl'))
    .sort();
  const transcripts = files.map((file) => readTranscript(new URL(file, FIXTURES).pathname));
  const runs: ReplayMetrics[] = [];
  for (const transcript of transcripts)
    for (const window of REPLAY_WINDOWS)
      runs.push(replayMetrics(await replayTranscript({ transcript, window })));
  const cpu = cpus();
  return {
    command: 'npm run eval -- eval-transcripts',
    machine: {
      cpu: cpu[0]?.model ?? 'unknown',
      cores: cpu.length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      platform: `${process.platform}-${process.arch}`,
    },
    replay: {
      model: REPLAY_MODEL,
      maxTokens: REPLAY_MAX_TOKENS,
      windows: REPLAY_WINDOWS,
      provider:
        "the emulator's openai profile: prompt counted through the emulator's chat template with o200k; over the window it answers 400 with OpenAI's context_length_exceeded wording",
      history: 'the caller resends the recorded history every step (adoptsHistory: false), no summarizer',
      cachedInputPrice: CACHED_INPUT_PRICE,
    },
    transcripts: transcripts.map((transcript) => ({
      name: transcript.name,
      agent: transcript.header.agent,
      source: transcript.header.source,
      trimmed: transcript.header.trimmed,
      recorded: recordedAgainstReplay(transcript),
    })),
    runs,
    frontier: await runwayFrontier(transcripts),
  };
}
