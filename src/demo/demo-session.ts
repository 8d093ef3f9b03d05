/**
 * @module
 * The scripted coding session both demo runs replay: a task, file reads of realistic sizes, searches
 * and test runs, a CI log the user pastes early on, and a final answer. The emulator plays the model;
 * the tools answer with deterministic text of the planned size.
 */
import type { Message } from '../core/index.js';
import { fakeToolResult, type Script, type ScriptReply } from '../emulator/index.js';
import type { LoopTool } from '../loop/index.js';

/**
 * Files the agent reads, with result sizes in o200k tokens of a mid-sized TypeScript service. They
 * stay at or below 2,000 tokens so that each one fits the budget even for a model Spillway cannot
 * place (the conservative estimate may count code at up to three times its o200k tokens).
 */
const READS: ReadonlyArray<readonly [string, number]> = [
  ['src/session/session-store.ts', 1_600],
  ['src/session/session-store.test.ts', 2_000],
  ['src/session/migrations.ts', 900],
  ['src/config/load-config.ts', 700],
  ['src/server/routes.ts', 1_900],
  ['src/server/middleware/auth.ts', 800],
  ['src/session/serialize.ts', 1_200],
  ['package.json', 500],
  ['src/session/cache.ts', 1_400],
  ['src/db/pool.ts', 1_000],
  ['src/session/session.ts', 1_800],
  ['test/helpers/fixtures.ts', 1_300],
  ['src/db/queries.ts', 1_700],
  ['vitest.config.ts', 500],
  ['src/session/expiry.ts', 900],
  ['README.md', 1_500],
  ['src/server/errors.ts', 800],
  ['src/session/index.ts', 600],
];
const SEARCHES = ['sessionTtl', 'createPool', 'expiresAt', 'SESSION_SECRET', 'serializeSession'];
const COMMANDS: ReadonlyArray<readonly [string, number]> = [
  ['npm test -- src/session', 1_200],
  ['npx tsc --noEmit', 700],
  ['git diff --stat', 400],
  ['npm test', 1_400],
];

/** Tokens of the CI log the user pastes. */
export const DEMO_PASTE_TOKENS = 2_000;

/** The system prompt and the task of the session. */
export const DEMO_TASK: Message[] = [
  {
    role: 'system',
    content: 'You are a coding agent. Use the tools to inspect the repository before you answer.',
  },
  { role: 'user', content: 'The session tests fail on CI since yesterday. Find out why and fix it.' },
];

/** One planned tool call: what the model asks for and how large the result is. */
export interface PlannedCall {
  name: 'read_file' | 'search' | 'run';
  args: Record<string, string>;
  size: number;
}

/** The whole session plan. */
export interface DemoSession {
  /** Assistant turns, the last one the answer. */
  turns: number;
  /** Tool calls of turns 1 … turns − 1. */
  calls: PlannedCall[];
  /** The user's paste arrives after this many turns. */
  pasteAfter: number;
  paste: Message;
  script: Script;
  tools: LoopTool[];
}

function callFor(turn: number): PlannedCall {
  const slot = turn % 5;
  if (slot === 2) {
    const query = SEARCHES[Math.floor(turn / 5) % SEARCHES.length] as string;
    return { name: 'search', args: { query, path: 'src' }, size: 300 + ((turn * 137) % 500) };
  }
  if (slot === 4) {
    const [command, size] = COMMANDS[Math.floor(turn / 5) % COMMANDS.length] as readonly [string, number];
    return { name: 'run', args: { command }, size };
  }
  const index = turn - Math.floor(turn / 5) * 2 - (slot > 2 ? 1 : 0);
  const [path, size] = READS[index % READS.length] as readonly [string, number];
  return { name: 'read_file', args: { path }, size };
}

/**
 * The session of `turns` assistant turns (at least 2): `turns − 1` tool calls, then the answer; the
 * user pastes a CI log after the third turn (or earlier in a shorter session).
 *
 * @example
 * const session = demoSession({ turns: 30 });
 * session.calls[0]; // { name: 'read_file', args: { path: 'src/session/session-store.ts' }, size: 2400 }
 */
export function demoSession({ turns = 30, seed = 0 }: { turns?: number; seed?: number } = {}): DemoSession {
  const count = Math.max(2, Math.floor(turns));
  const calls = Array.from({ length: count - 1 }, (_, turn) => callFor(turn));
  const replies: ScriptReply[] = calls.map((call, turn) => ({
    textTokens: 12 + ((turn * 7) % 20),
    reasoningTokens: 20 + ((turn * 11) % 40),
    toolCalls: [{ name: call.name, arguments: call.args }],
  }));
  replies.push({
    text: 'The session store reads `expiresAt` as seconds while the migration writes milliseconds; I fixed the conversion in src/session/expiry.ts and the tests pass.',
    textTokens: 80,
  });
  const log = fakeToolResult({
    name: 'run',
    args: { command: 'npm test' },
    seed: seed + 1,
    size: DEMO_PASTE_TOKENS,
  });
  const sizes = new Map(calls.map((call) => [`${call.name} ${JSON.stringify(call.args)}`, call.size]));
  const tool = (
    name: PlannedCall['name'],
    description: string,
    properties: Record<string, unknown>,
  ): LoopTool => ({
    name,
    description,
    parameters: { type: 'object', properties, required: Object.keys(properties).slice(0, 1) },
    execute: (args) => {
      const size = sizes.get(`${name} ${JSON.stringify(args)}`);
      return fakeToolResult({ name, args, seed, ...(size === undefined ? {} : { size }) });
    },
  });
  return {
    turns: count,
    calls,
    pasteAfter: Math.min(3, count - 1),
    paste: { role: 'user', content: `CI fails with this log, in case it helps:\n\n${log}` },
    script: { replies, selectBy: 'assistant-turns', after: 'repeat-last', adaptToTools: true },
    tools: [
      tool('read_file', 'Read a file of the repository.', { path: { type: 'string' } }),
      tool('search', 'Search the repository for a string.', {
        query: { type: 'string' },
        path: { type: 'string' },
      }),
      tool('run', 'Run a shell command in the repository.', { command: { type: 'string' } }),
    ],
  };
}
