/**
 * @module
 * Replays of recorded agent sessions through the driver, against a provider that counts with the
 * emulator's template and o200k, and the figures of each replay.
 */
export {
  type RecordedStep,
  type RecordedUsage,
  readTranscript,
  recordedPromptTokens,
  type Transcript,
  type TranscriptHeader,
} from './read-transcript.js';
export { CACHED_INPUT_PRICE, commonPrefix, type ReplayMetrics, replayMetrics } from './replay-metrics.js';
export {
  countRequest,
  createReplayProvider,
  type ProviderCall,
  type ReplayProvider,
  type ReplayProviderOptions,
} from './replay-provider.js';
export {
  REPLAY_MAX_TOKENS,
  REPLAY_MODEL,
  type ReplayOptions,
  type ReplayRun,
  type ReplaySend,
  replayTranscript,
  type StepOutcome,
  smallestRequest,
} from './replay-transcript.js';
