import { fillerProse, sourceLine } from './filler-text.js';
import { createRandom, type Random } from './random.js';
import { getTokenizer } from './tokenizer.js';

/** Options of {@link fakeToolResult}. */
export interface FakeToolResultOptions {
  /** The tool's name: `read_file`, `search` (or `grep`), `run` (or `bash`, `shell`) have their own shapes. */
  name: string;
  /** The call's arguments (an object or its JSON text); `path`, `query` and `command` are used. */
  args?: unknown;
  seed?: number;
  /** Target size in o200k tokens; by default a seeded size typical for the tool. */
  size?: number;
}

const DIRECTORIES = ['core', 'cli', 'providers', 'loop', 'store', 'proxy', 'models', 'utils'];
const FILES = ['index', 'client', 'server', 'session', 'budget', 'estimate', 'config', 'errors', 'stream'];

/** Typical sizes in tokens, [min, max], by kind of tool, from coding-agent transcripts. */
const SIZES: Record<string, [number, number]> = {
  read: [600, 4_000],
  search: [150, 1_200],
  run: [200, 2_500],
  other: [100, 800],
};

function kindOf(name: string): keyof typeof SIZES {
  if (/read|cat|view|open/i.test(name)) return 'read';
  if (/search|grep|find|glob/i.test(name)) return 'search';
  if (/run|bash|shell|exec|command|terminal/i.test(name)) return 'run';
  return 'other';
}

function argumentsObject(args: unknown): Record<string, unknown> {
  if (typeof args === 'string') {
    try {
      const parsed = JSON.parse(args) as unknown;
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }
  return typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
}

function randomPath(random: Random): string {
  return `src/${random.pick(DIRECTORIES)}/${random.pick(FILES)}.ts`;
}

function lineGenerator(
  kind: keyof typeof SIZES,
  args: Record<string, unknown>,
  random: Random,
): () => string {
  let number = 0;
  switch (kind) {
    case 'read':
      return () => {
        number += 1;
        return `${String(number).padStart(5)}\t${sourceLine(random)}`;
      };
    case 'search': {
      const query =
        typeof args.query === 'string'
          ? args.query
          : typeof args.pattern === 'string'
            ? args.pattern
            : 'TODO';
      return () => `${randomPath(random)}:${random.int(1, 900)}:${sourceLine(random).trim()} // ${query}`;
    }
    case 'run':
      return () => {
        const roll = random.int(0, 9);
        if (roll < 5)
          return ` ✓ ${randomPath(random).replace('.ts', '.test.ts')} (${random.int(1, 40)} tests) ${random.int(2, 900)}ms`;
        if (roll === 5)
          return ` × ${randomPath(random).replace('.ts', '.test.ts')} > ${fillerProse(random, 8).toLowerCase()}`;
        if (roll === 6)
          return `   AssertionError: expected ${random.int(0, 99)} to be ${random.int(100, 199)}`;
        if (roll === 7)
          return `    at ${random.pick(FILES)} (${randomPath(random)}:${random.int(1, 400)}:${random.int(1, 80)})`;
        if (roll === 8)
          return `npm warn deprecated ${random.pick(FILES)}@${random.int(1, 9)}.${random.int(0, 20)}.${random.int(0, 9)}: ${fillerProse(random, 10)}`;
        return `[${random.pick(['info', 'debug', 'warn'])}] ${fillerProse(random, random.int(6, 18))}`;
      };
    default:
      return () =>
        `{"id": "${random.chars(12)}", "name": "${random.pick(FILES)}", "value": ${random.int(0, 99_999)}, "note": "${fillerProse(random, 8)}"}`;
  }
}

function headerOf(kind: keyof typeof SIZES, args: Record<string, unknown>): string | undefined {
  if (kind === 'run' && typeof args.command === 'string') return `$ ${args.command}`;
  return undefined;
}

/**
 * Realistic, deterministic text for a tool result: source with line numbers for `read_file`, grep
 * lines for `search`, test-runner output for `run`, JSON records otherwise. The emulators only play
 * the assistant; clients and tests use this to answer the tool calls a scripted model makes. Same
 * name, arguments, seed and size, same text.
 *
 * @example
 * import { fakeToolResult } from 'spillway/testing';
 * const content = fakeToolResult({ name: 'read_file', args: { path: 'src/a.ts' }, seed: 7, size: 1_500 });
 */
export function fakeToolResult({ name, args = {}, seed = 0, size }: FakeToolResultOptions): string {
  const object = argumentsObject(args);
  const kind = kindOf(name);
  const random = createRandom(seed, 'tool-result', name, JSON.stringify(object));
  const [min, max] = SIZES[kind] ?? [100, 800];
  const target = Math.max(1, size ?? random.int(min, max));
  const tokenizer = getTokenizer('o200k');
  const next = lineGenerator(kind, object, random);
  const lines: string[] = [];
  let total = 0;
  const header = headerOf(kind, object);
  if (header !== undefined) {
    lines.push(header);
    total += tokenizer.count(`${header}\n`);
  }
  while (total < target) {
    const line = next();
    lines.push(line);
    total += tokenizer.count(`${line}\n`);
  }
  return lines.join('\n');
}
