/**
 * The README's usage, `manager.fit(fromOpenAIChat(body))` on every send with the body read anew (what
 * every HTTP-shaped caller does), three ways: handed the body's bytes as the server received them,
 * its text, and the value the caller parsed from it; then with the caller's own wire messages, the
 * same objects appended to its array (what a program that keeps its conversation in the provider's
 * format does); all against the tool loop's path, where the same Spillway message objects are
 * appended to one array. One turn (an assistant tool call and its result) is appended before every
 * send, up to 1,000 turns; after each send the provider's count is fed back (`observe`), as every
 * surface does.
 *
 * Times are process CPU time of `fromOpenAIChat` + `fit` + `observe`: reading the bytes or the text is
 * part of those paths' time; the caller's own decoding and parse are not. Before every send every
 * path does the same untimed work, the caller's: the body written, sent as bytes, decoded as text,
 * and parsed (the paths that do not use them drop them), so all meet the same state of memory. Each path
 * runs in a process of its own, as a program reads its requests one way (what Spillway remembers of
 * earlier bodies is the process's); the cost at a checkpoint is the median of the sends just before
 * it. The paths take turns going first, round by round, for `rounds` rounds, each round a session of
 * its own, and each figure is the median over rounds (ratios are taken within a round).
 *
 * Each round also grows the session to 200 turns with an agent's tool list (45 tools, about 60 KB)
 * after the messages, as clients send it with every body, on the bytes path and the same objects.
 *
 * `npx tsx bench/fresh-bodies.ts` runs it alone; `npm run bench -- fresh-bodies` as part of the suite.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  type ChatRequest,
  ContextWindowManager,
  fromOpenAIChat,
  type ToolDefinition,
  toOpenAIChat,
} from '../src/core/index.js';
import { realisticTools } from '../test/fixtures/mcp/realistic-tools.mjs';
import { median } from '../test/support/median.js';
import { buildSession } from './bounded-send.js';
import { round } from './timing.js';

const SELF = fileURLToPath(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Turn counts at which the per-send cost is reported. */
export const FRESH_CHECKPOINTS = [10, 100, 1_000] as const;
/**
 * Sends whose median is the per-send cost at a checkpoint (fewer at the first, where the first send,
 * the one that reads everything, is left out). One send's CPU time is a fraction of a millisecond,
 * and a collection falls into some of them: the median of more sends is moved less by them.
 */
const NEIGHBOURS = 25;
/**
 * GPT-4o's window: the session outgrows it a little after 300 turns, so the later sends also keep a
 * cut (the same one, sticky, most of the time), as a long agent run does.
 */
const WINDOW = 128_000;
const MODEL = 'gpt-4o';
/** The session's one tool. */
const ONE_TOOL: ToolDefinition[] = [
  {
    name: 'read_file',
    description: 'Read a file',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  },
];
/**
 * An agent's tool list, sent after the messages with every body as clients send it: 45 tools of three
 * MCP servers (the test fixture's realistic schemas), about 60 KB.
 */
const AGENT_TOOLS: ToolDefinition[] = (['tracker', 'docs', 'chat'] as const).flatMap((domain) =>
  realisticTools({ domain, count: 15 }).map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.inputSchema,
  })),
);
/** Turns of the session with the agent's tool list, and its checkpoint. */
const TOOL_LIST_TURNS = 200;

/** Options of {@link benchFreshBodies}. */
export interface FreshBodiesOptions {
  /** Tool turns the session grows to. */
  turns?: number;
  rounds?: number;
}

/** One path's cost at one checkpoint. */
export interface FreshBodiesPoint {
  turns: number;
  messages: number;
  /** CPU milliseconds per send (median of the sends before the checkpoint, then over rounds). */
  bytesMs: number;
  textMs: number;
  freshMs: number;
  /** The caller's own wire message objects, appended to its array. */
  ownMs: number;
  sameMs: number;
  /** The caller's own decoding of the bytes, which the text path needs first (not in `textMs`). */
  decodeMs: number;
  /** The caller's own `JSON.parse` of the body, which the parsed path needs first (not in `freshMs`). */
  parseMs: number;
  /** bytes / same, per round, the median. */
  bytesRatio: number;
  /** text / same, per round, the median. */
  textRatio: number;
  /** fresh / same, per round, the median. */
  ratio: number;
  /** own / same, per round, the median. */
  ownRatio: number;
}

/** What {@link benchFreshBodies} reports. */
export interface FreshBodiesResult {
  command: string;
  clock: string;
  rounds: number;
  window: number;
  points: FreshBodiesPoint[];
  /** CPU seconds over the whole growth, per path (median over rounds). */
  totalBytesSeconds: number;
  totalTextSeconds: number;
  totalFreshSeconds: number;
  totalOwnSeconds: number;
  totalSameSeconds: number;
  /** Per-send cost at the last checkpoint over that at the one before, per path. */
  growthBytes: number;
  growthText: number;
  growthFresh: number;
  growthOwn: number;
  growthSame: number;
  /** The same session with an agent's tool list after its messages: the bytes path and the same objects. */
  toolList: {
    tools: number;
    /** The tool list's JSON, in kilobytes. */
    kilobytes: number;
    turns: number;
    bytesMs: number;
    sameMs: number;
    /** bytes / same, per round, the median. */
    bytesRatio: number;
  };
}

function cpuMs(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1_000;
}

/** What the provider reports for a fitted request: a stable figure a little above the raw estimate. */
function reported(fitted: { breakdown: { total: number } }): number {
  return Math.round(fitted.breakdown.total * 1.05) + 3;
}

interface Run {
  /** CPU milliseconds of every send, in order. */
  costs: number[];
  /** CPU milliseconds of the caller's `JSON.parse` of every send's text, in order. */
  parses: number[];
  /** CPU milliseconds of the caller's decoding of every send's bytes, in order. */
  decodes: number[];
  total: number;
}

/**
 * The paths measured: the body's bytes as an HTTP server receives them, its text, that text parsed,
 * the caller's own wire messages appended, the same Spillway messages appended.
 */
export const FRESH_PATHS = ['bytes', 'text', 'fresh', 'own', 'same'] as const;
type Path = (typeof FRESH_PATHS)[number];

/** A body as the caller has it: the bytes it received, their text, and the value parsed from it. */
interface CallerBody {
  bytes: Buffer;
  text: string;
  parsed: unknown;
  decodeMs: number;
  parseMs: number;
}

/**
 * The caller's work before a send, untimed and the same for every path: the body of this send
 * written as JSON, sent as UTF-8 bytes (what an HTTP server receives), decoded as text, and parsed.
 */
function callerBody(wire: Record<string, unknown>, turn: number): CallerBody {
  const all = wire.messages as unknown[];
  const bytes = Buffer.from(JSON.stringify({ ...wire, messages: all.slice(0, 4 + 2 * turn) }));
  const decoding = process.cpuUsage();
  const text = bytes.toString('utf8');
  const decodeMs = cpuMs(decoding);
  const start = process.cpuUsage();
  const parsed: unknown = JSON.parse(text);
  return { bytes, text, parsed, decodeMs, parseMs: cpuMs(start) };
}

/**
 * One path over one growth, in this process: before every send the caller's body is made (the paths
 * that do not use it drop it).
 */
function runPath(path: Path, base: ChatRequest, wire: Record<string, unknown>, turns: number): Run {
  const manager = new ContextWindowManager({ contextLength: WINDOW, model: MODEL });
  // The tool loop's path: one array of the same message objects, grown in place.
  const messages = base.messages.slice(0, 2);
  // The caller's own wire messages: one array of the same objects in the provider's format.
  const wireMessages = wire.messages as unknown[];
  const own = wireMessages.slice(0, 2);
  const requestOf: Record<Path, (body: CallerBody) => ChatRequest> = {
    // The README's usage with the body's bytes: a resent history is compared as bytes, never decoded
    // again, and parsed only from where it changed.
    bytes: ({ bytes }) => fromOpenAIChat(bytes),
    // The same with the body's text.
    text: ({ text }) => fromOpenAIChat(text),
    // The README's usage with a body the caller parsed: new objects, compared with what was read.
    fresh: ({ parsed }) => fromOpenAIChat(parsed),
    // The README's usage with the caller's own wire messages: the objects it appended before.
    own: () => fromOpenAIChat({ ...wire, messages: own }),
    same: () => ({ ...base, messages: messages.slice() }),
  };
  const costs: number[] = [];
  const parses: number[] = [];
  const decodes: number[] = [];
  for (let turn = 0; turn < turns; turn++) {
    messages.push(...base.messages.slice(2 + 2 * turn, 4 + 2 * turn));
    own.push(...wireMessages.slice(2 + 2 * turn, 4 + 2 * turn));
    const body = callerBody(wire, turn);
    parses.push(body.parseMs);
    decodes.push(body.decodeMs);
    const start = process.cpuUsage();
    const fitted = manager.fit(requestOf[path](body));
    manager.observe({ promptTokens: reported(fitted) });
    costs.push(cpuMs(start));
  }
  return { costs, parses, decodes, total: costs.reduce((sum, cost) => sum + cost, 0) };
}

/** A round's session: a conversation of its own, so what a send appends is new to every cache. */
function sessionOf(
  turns: number,
  round: number,
  tools: ToolDefinition[] = ONE_TOOL,
): { base: ChatRequest; wire: Record<string, unknown> } {
  const base: ChatRequest = {
    format: 'openai',
    model: MODEL,
    messages: buildSession(turns, 7 + round),
    tools,
    extra: {},
  };
  return { base, wire: toOpenAIChat(base) as unknown as Record<string, unknown> };
}

/**
 * One path of one round in a process of its own: what Spillway remembers of earlier bodies is the
 * process's, as it is in a program that reads its requests one way.
 */
function runPathProcess(path: Path, turns: number, round: number, toolList = false): Run {
  const out = execFileSync(process.execPath, ['--import', 'tsx', SELF], {
    cwd: ROOT,
    env: {
      ...process.env,
      FRESH_PATH: path,
      TURNS: String(turns),
      FRESH_ROUND: String(round),
      FRESH_TOOLS: toolList ? 'agent' : 'one',
    },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out) as Run;
}

const at = (costs: number[], turns: number) => median(costs.slice(Math.max(1, turns - NEIGHBOURS), turns));

/**
 * Per-send cost of the README's pattern against the same-objects path at 10, 100 and 1,000 turns.
 *
 * @example
 * const result = await benchFreshBodies({ rounds: 5 });
 * console.log(result.points.at(-1)?.ratio); // fresh / same at 1,000 turns
 */
export async function benchFreshBodies({
  turns = 1_000,
  // Fifteen: one round's ratio at 1,000 turns ranged from 1.3 to 2.8 in runs of the same code (a
  // process's per-send cost there moves by a third from one process to the next); medians of five
  // moved by a tenth or more from one run to the next, and medians of nine of the text path's ratio
  // went from 1.90 to 2.34 over four runs.
  rounds = 15,
}: FreshBodiesOptions = {}): Promise<FreshBodiesResult> {
  const checkpoints = FRESH_CHECKPOINTS.filter((checkpoint) => checkpoint <= turns);
  const perRound: Array<Record<Path, Run>> = [];
  const toolRounds: Array<{ bytes: Run; same: Run }> = [];
  for (let round = 0; round < rounds; round++) {
    // The paths take turns going first, round by round.
    const runs = {} as Record<Path, Run>;
    for (let at = 0; at < FRESH_PATHS.length; at++) {
      const path = FRESH_PATHS[(at + round) % FRESH_PATHS.length] as Path;
      runs[path] = runPathProcess(path, turns, round);
    }
    perRound.push(runs);
    const order = round % 2 === 0 ? (['bytes', 'same'] as const) : (['same', 'bytes'] as const);
    const toolRuns = {} as { bytes: Run; same: Run };
    for (const path of order) toolRuns[path] = runPathProcess(path, TOOL_LIST_TURNS, round, true);
    toolRounds.push(toolRuns);
  }
  /** A path's figure at a checkpoint (what `of` takes of its run there), the median over rounds. */
  const medianAt = (path: Path, checkpoint: number, of: (run: Run) => number[] = (run) => run.costs) =>
    round(median(perRound.map((runs) => at(of(runs[path]), checkpoint))), 3);
  /** A path's per-send cost over the same objects' at a checkpoint, per round, the median. */
  const ratioAt = (path: Path, checkpoint: number) =>
    round(
      median(perRound.map((runs) => at(runs[path].costs, checkpoint) / at(runs.same.costs, checkpoint))),
      2,
    );
  const points = checkpoints.map((checkpoint) => ({
    turns: checkpoint,
    messages: 2 + 2 * checkpoint,
    bytesMs: medianAt('bytes', checkpoint),
    textMs: medianAt('text', checkpoint),
    freshMs: medianAt('fresh', checkpoint),
    ownMs: medianAt('own', checkpoint),
    sameMs: medianAt('same', checkpoint),
    decodeMs: medianAt('text', checkpoint, (run) => run.decodes),
    parseMs: medianAt('fresh', checkpoint, (run) => run.parses),
    bytesRatio: ratioAt('bytes', checkpoint),
    textRatio: ratioAt('text', checkpoint),
    ratio: ratioAt('fresh', checkpoint),
    ownRatio: ratioAt('own', checkpoint),
  }));
  const growth = (path: Path) => {
    const [before, last] = checkpoints.slice(-2);
    if (before === undefined || last === undefined) return 1;
    return round(
      median(perRound.map((runs) => at(runs[path].costs, last) / at(runs[path].costs, before))),
      2,
    );
  };
  const totalSeconds = (path: Path) => round(median(perRound.map((runs) => runs[path].total)) / 1_000, 2);
  const toolAt = (path: 'bytes' | 'same') =>
    round(median(toolRounds.map((runs) => at(runs[path].costs, TOOL_LIST_TURNS))), 3);
  return {
    command: 'npm run bench -- fresh-bodies',
    clock: 'process CPU time',
    rounds,
    window: WINDOW,
    points,
    totalBytesSeconds: totalSeconds('bytes'),
    totalTextSeconds: totalSeconds('text'),
    totalFreshSeconds: totalSeconds('fresh'),
    totalOwnSeconds: totalSeconds('own'),
    totalSameSeconds: totalSeconds('same'),
    growthBytes: growth('bytes'),
    growthText: growth('text'),
    growthFresh: growth('fresh'),
    growthOwn: growth('own'),
    growthSame: growth('same'),
    toolList: {
      tools: AGENT_TOOLS.length,
      kilobytes: round(
        JSON.stringify(toOpenAIChat(sessionOf(1, 0, AGENT_TOOLS).base).tools).length / 1_000,
        1,
      ),
      turns: TOOL_LIST_TURNS,
      bytesMs: toolAt('bytes'),
      sameMs: toolAt('same'),
      bytesRatio: round(
        median(
          toolRounds.map(
            (runs) => at(runs.bytes.costs, TOOL_LIST_TURNS) / at(runs.same.costs, TOOL_LIST_TURNS),
          ),
        ),
        2,
      ),
    },
  };
}

const path = process.env.FRESH_PATH as Path | undefined;
if (path !== undefined && FRESH_PATHS.includes(path)) {
  const turns = Number(process.env.TURNS ?? 1_000);
  const tools = process.env.FRESH_TOOLS === 'agent' ? AGENT_TOOLS : ONE_TOOL;
  const { base, wire } = sessionOf(turns, Number(process.env.FRESH_ROUND ?? 0), tools);
  process.stdout.write(JSON.stringify(runPath(path, base, wire, turns)));
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const turns = Number(process.env.TURNS ?? 1_000);
  const rounds = process.env.ROUNDS === undefined ? undefined : Number(process.env.ROUNDS);
  console.log(JSON.stringify(await benchFreshBodies({ turns, ...(rounds ? { rounds } : {}) }), null, 2));
}
