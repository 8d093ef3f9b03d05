/**
 * @module
 * Reads a replay fixture of test/fixtures/transcripts: a header line, then one OpenAI Chat message a
 * line, each assistant message with the usage its provider reported for the request that produced it.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fromOpenAIChat, type Message, SpillwayError } from '../../../src/core/index.js';

/** Usage as the agent recorded it (pi's names): input, cache reads and cache writes add up to the prompt. */
export interface RecordedUsage {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
}

/** One provider call of the recorded session: the reply at `at`, asked for with messages `[0, at)`. */
export interface RecordedStep {
  at: number;
  usage: RecordedUsage;
  model?: string;
}

/** Where a fixture came from and how it was trimmed. */
export interface TranscriptHeader {
  format: 'spillway-transcript-1';
  agent: string;
  source: { repository: string; path: string; commit: string; blob?: string; license: string };
  trimmed: { stoppedAt: { reason: string; line: number } | null; steps: number };
}

/** A recorded agent session, ready to replay. */
export interface Transcript {
  name: string;
  header: TranscriptHeader;
  messages: Message[];
  steps: RecordedStep[];
}

/** The prompt tokens a recorded step's provider reported. */
export function recordedPromptTokens(usage: RecordedUsage): number {
  return usage.input + usage.cacheRead + usage.cacheWrite;
}

function parseLine(line: string, index: number, path: string): Record<string, unknown> {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch (error) {
    throw new SpillwayError(
      'invalid_transcript',
      `line ${index + 1} of ${path} is not JSON (${(error as Error).message}); regenerate the fixture with scripts/trim-pi-session.ts`,
    );
  }
}

/**
 * Reads the fixture at `path`.
 *
 * @example
 * const transcript = readTranscript('test/fixtures/transcripts/pi-opus-4-5-2025-12-08.jsonl');
 * transcript.steps.length; // 150
 */
export function readTranscript(path: string): Transcript {
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  const [first, ...rest] = lines.map((line, index) => parseLine(line, index, path));
  if (first?.format !== 'spillway-transcript-1')
    throw new SpillwayError(
      'invalid_transcript',
      `${path} does not start with a spillway-transcript-1 header; regenerate it with scripts/trim-pi-session.ts`,
    );
  const { messages } = fromOpenAIChat({ messages: rest.map((line) => line.message) });
  const steps: RecordedStep[] = [];
  rest.forEach((line, at) => {
    if (line.usage === undefined) return;
    steps.push({
      at,
      usage: line.usage as RecordedUsage,
      ...(typeof line.model === 'string' ? { model: line.model } : {}),
    });
  });
  return { name: basename(path, '.jsonl'), header: first as unknown as TranscriptHeader, messages, steps };
}
