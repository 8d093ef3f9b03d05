/**
 * @module
 * The trajectories the `kept` evaluation replays: published SWE-bench-style runs of mini-swe-agent and
 * SWE-agent (test/fixtures/trajectories) and recorded pi sessions (test/fixtures/transcripts), each
 * with its fixed split: a third of every agent's runs is held out of all tuning.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fromOpenAIChat, type Message } from '../../src/core/index.js';

/** Which side of the fixed split a trajectory is on. */
export type Split = 'tuning' | 'held-out';

/** One agent run, ready to replay. */
export interface Trajectory {
  name: string;
  agent: string;
  source: Record<string, unknown>;
  split: Split;
  messages: Message[];
  /** Index of each provider call's reply: the request of step `k` is `messages.slice(0, steps[k])`. */
  steps: number[];
}

const DIRECTORIES = [
  new URL('../../test/fixtures/trajectories/', import.meta.url),
  new URL('../../test/fixtures/transcripts/', import.meta.url),
];

function readOne(path: string): Omit<Trajectory, 'split'> {
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const [header, ...rest] = lines;
  if (header?.format !== 'spillway-transcript-1')
    throw new Error(`${path} does not start with a spillway-transcript-1 header`);
  const { messages } = fromOpenAIChat({ messages: rest.map((line) => line.message) });
  const steps = messages.flatMap((message, index) => (message.role === 'assistant' ? [index] : []));
  return {
    name: basename(path, '.jsonl'),
    agent: String(header.agent),
    source: header.source as Record<string, unknown>,
    messages,
    steps,
  };
}

/**
 * The fixed split: within each agent, runs sorted by name, every third one (the 3rd, 6th, …) is
 * held out. Decided before any tuning and never changed, so the held-out figures stay honest.
 */
export function splitOf(index: number): Split {
  return index % 3 === 2 ? 'held-out' : 'tuning';
}

/**
 * Every trajectory, with its split.
 *
 * @example
 * const heldOut = readTrajectories().filter((run) => run.split === 'held-out');
 */
export function readTrajectories(): Trajectory[] {
  const runs = DIRECTORIES.flatMap((directory) =>
    readdirSync(directory)
      .filter((file) => file.endsWith('.jsonl'))
      .map((file) => readOne(new URL(file, directory).pathname)),
  ).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const seen = new Map<string, number>();
  return runs.map((run) => {
    const index = seen.get(run.agent) ?? 0;
    seen.set(run.agent, index + 1);
    return { ...run, split: splitOf(index) };
  });
}
