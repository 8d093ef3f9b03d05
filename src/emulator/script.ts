import { SpillwayError } from '../core/index.js';
import { fillerProse } from './filler-text.js';
import { createRandom } from './random.js';
import { fillPlaceholders } from './script-placeholders.js';

/** A tool call a scripted reply makes. */
export interface ScriptToolCall {
  name: string;
  /** The arguments: an object (sent as its JSON) or raw text (sent as is, valid JSON or not). */
  arguments?: Record<string, unknown> | string;
  /** Pads an object's arguments with a `content` field of filler up to about this many tokens. */
  argumentsTokens?: number;
}

/** One scripted assistant reply. Sizes are in tokens of filler text, drawn from the seed. */
export interface ScriptReply {
  text?: string;
  textTokens?: number;
  reasoning?: string;
  reasoningTokens?: number;
  toolCalls?: ScriptToolCall[];
}

/**
 * The replies a scripted model gives. Which one answers a request:
 * - `selectBy: 'assistant-turns'` (default): `replies[n]` where n is the number of assistant messages
 *   the conversation already holds. A replayed or retried conversation gets the same reply, so runs
 *   stay deterministic whatever the client retries.
 * - `selectBy: 'request'`: `replies[k - 1]` for the k-th chat request the emulator receives.
 * Past the end, `after: 'repeat-last'` (default) repeats the last reply; `'cycle'` starts over.
 */
export interface Script {
  replies: ScriptReply[];
  selectBy?: 'assistant-turns' | 'request';
  after?: 'repeat-last' | 'cycle';
  /** Call only tools the request declares: an undeclared name goes to a declared tool, and with no
   * tools declared the reply is its text alone (default: false; true for the built-in script). */
  adaptToTools?: boolean;
  /** `generic`: replies are computed from the tools each request offers (see `genericAgentScript`). */
  agent?: 'generic';
}

/** A reply made concrete for one request: all text generated, arguments as JSON text. */
export interface ResolvedReply {
  reasoning: string;
  text: string;
  toolCalls: { name: string; arguments: string }[];
}

const FILES = [
  'src/index.ts',
  'src/server.ts',
  'src/config.ts',
  'src/session.ts',
  'src/budget.ts',
  'package.json',
  'README.md',
];
const QUERIES = ['TODO', 'maxTokens', 'contextLength', 'export function', 'throw new Error', 'retry'];
const COMMANDS = ['npm test', 'npx tsc --noEmit', 'git status', 'npm run lint', 'git diff --stat'];

/**
 * The built-in script: a coding agent that reads files, searches and runs commands for `turns` turns
 * (one tool call a turn, a sentence of text and a little reasoning before it), then answers with a
 * summary. Tool results are the client's to produce; `fakeToolResult` makes realistic ones.
 *
 * @example
 * const script = codingAgentScript({ turns: 10, seed: 3 });
 */
export function codingAgentScript({ turns = 40, seed = 0 }: { turns?: number; seed?: number } = {}): Script {
  const replies: ScriptReply[] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    const random = createRandom(seed, 'coding-agent', turn);
    const kind = turn === 0 ? 1 : random.int(0, 2);
    const call: ScriptToolCall =
      kind === 0
        ? { name: 'read_file', arguments: { path: random.pick(FILES) } }
        : kind === 1
          ? { name: 'search', arguments: { query: random.pick(QUERIES), path: 'src' } }
          : { name: 'run', arguments: { command: random.pick(COMMANDS) } };
    replies.push({ textTokens: random.int(8, 40), reasoningTokens: random.int(0, 120), toolCalls: [call] });
  }
  replies.push({ textTokens: 120, reasoningTokens: 40 });
  return { replies, selectBy: 'assistant-turns', after: 'repeat-last', adaptToTools: true };
}

/** Which reply of `script` answers: by assistant turns in the body, or by request number. */
export function replyIndex(
  script: Script,
  { assistantTurns, requestNumber }: { assistantTurns: number; requestNumber: number },
): number {
  const wanted = script.selectBy === 'request' ? requestNumber - 1 : assistantTurns;
  const count = script.replies.length;
  if (wanted < count) return Math.max(0, wanted);
  return script.after === 'cycle' ? wanted % count : count - 1;
}

/**
 * Fills in one scripted reply: filler text from the seed, tool names adapted to the declared tools,
 * placeholders (`{{listed_file}}`, `{{prompt_word}}`) in its text and string arguments filled from
 * the request's `messages`.
 */
export function resolveReply(
  reply: ScriptReply,
  {
    seed,
    index,
    declaredTools,
    adaptToTools = false,
    messages = [],
  }: {
    seed: number;
    index: number;
    declaredTools: string[];
    adaptToTools?: boolean;
    /** The request's wire messages, for placeholders. */
    messages?: readonly unknown[];
  },
): ResolvedReply {
  const random = createRandom(seed, 'reply', index);
  const fill = (text: string) => fillPlaceholders(text, messages);
  const join = (literal: string | undefined, tokens: number | undefined): string =>
    [literal === undefined ? '' : fill(literal), tokens ? fillerProse(random, tokens) : '']
      .filter((part) => part !== '')
      .join(' ');
  let calls = reply.toolCalls ?? [];
  if (adaptToTools) {
    calls =
      declaredTools.length === 0
        ? []
        : calls.map((call, position) =>
            declaredTools.includes(call.name)
              ? call
              : { ...call, name: declaredTools[(index + position) % declaredTools.length] ?? call.name },
          );
  }
  return {
    reasoning: join(reply.reasoning, reply.reasoningTokens),
    text: join(reply.text, reply.textTokens),
    toolCalls: calls.map((call) => {
      if (typeof call.arguments === 'string') return { name: call.name, arguments: call.arguments };
      const object: Record<string, unknown> = Object.fromEntries(
        Object.entries(call.arguments ?? {}).map(([key, value]) => [
          key,
          typeof value === 'string' ? fill(value) : value,
        ]),
      );
      if (call.argumentsTokens) object.content = fillerProse(random, call.argumentsTokens);
      return { name: call.name, arguments: JSON.stringify(object) };
    }),
  };
}

function fail(path: string, problem: string): never {
  throw new SpillwayError('invalid_config', `script${path} ${problem}`, { data: { path: `script${path}` } });
}

function checkCount(value: unknown, path: string): void {
  if (value !== undefined && (!Number.isInteger(value) || (value as number) < 0))
    fail(path, 'must be an integer >= 0');
}

/**
 * Checks a script given as JSON (a `Script`, or just its array of replies) and returns it as a
 * `Script`. Fails with `invalid_config` naming the path of the first wrong field.
 *
 * @example
 * parseScript([{ text: 'Done.' }]); // { replies: [{ text: 'Done.' }] }
 */
export function parseScript(value: unknown): Script {
  const script = (Array.isArray(value) ? { replies: value } : value) as Record<string, unknown>;
  if (typeof script !== 'object' || script === null || !Array.isArray(script.replies))
    fail('', 'must be an array of replies or an object with a "replies" array');
  const known = new Set(['replies', 'selectBy', 'after', 'adaptToTools', 'agent']);
  for (const key of Object.keys(script)) if (!known.has(key)) fail(`.${key}`, 'is not a script field');
  if (script.selectBy !== undefined && script.selectBy !== 'assistant-turns' && script.selectBy !== 'request')
    fail('.selectBy', 'must be "assistant-turns" or "request"');
  if (script.after !== undefined && script.after !== 'repeat-last' && script.after !== 'cycle')
    fail('.after', 'must be "repeat-last" or "cycle"');
  if (script.agent !== undefined && script.agent !== 'generic') fail('.agent', 'must be "generic"');
  const replyKeys = new Set(['text', 'textTokens', 'reasoning', 'reasoningTokens', 'toolCalls']);
  (script.replies as unknown[]).forEach((reply, index) => {
    const path = `.replies[${index}]`;
    if (typeof reply !== 'object' || reply === null || Array.isArray(reply)) fail(path, 'must be an object');
    const fields = reply as Record<string, unknown>;
    for (const key of Object.keys(fields))
      if (!replyKeys.has(key)) fail(`${path}.${key}`, 'is not a reply field');
    for (const key of ['text', 'reasoning'])
      if (fields[key] !== undefined && typeof fields[key] !== 'string')
        fail(`${path}.${key}`, 'must be a string');
    checkCount(fields.textTokens, `${path}.textTokens`);
    checkCount(fields.reasoningTokens, `${path}.reasoningTokens`);
    if (fields.toolCalls === undefined) return;
    if (!Array.isArray(fields.toolCalls)) fail(`${path}.toolCalls`, 'must be an array');
    fields.toolCalls.forEach((call: unknown, position: number) => {
      const callPath = `${path}.toolCalls[${position}]`;
      const entry = call as Record<string, unknown>;
      if (typeof call !== 'object' || call === null || typeof entry.name !== 'string' || entry.name === '')
        fail(`${callPath}.name`, 'must be a non-empty string');
      const args = entry.arguments;
      if (
        args !== undefined &&
        typeof args !== 'string' &&
        (typeof args !== 'object' || args === null || Array.isArray(args))
      )
        fail(`${callPath}.arguments`, 'must be an object or a string');
      checkCount(entry.argumentsTokens, `${callPath}.argumentsTokens`);
    });
  });
  return script as unknown as Script;
}
