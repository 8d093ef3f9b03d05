/**
 * Writes examples/long-session.json: a deterministic 40-turn coding session in OpenAI Chat format
 * (file reads, searches, test runs) of about 60k tokens, for `spillway fit` and `npm start`.
 * Run: `npx tsx scripts/make-example.ts`.
 */
import { writeFileSync } from 'node:fs';
import { createRandom } from '../test/corpus/random.js';

const random = createRandom(42);
const NAMES = [
  'session',
  'store',
  'token',
  'budget',
  'parser',
  'router',
  'cache',
  'client',
  'config',
  'queue',
  'worker',
  'schema',
];
const VERBS = ['load', 'save', 'parse', 'resolve', 'validate', 'render', 'flush', 'merge', 'split', 'count'];

function identifier(): string {
  const noun = random.pick(NAMES);
  return `${random.pick(VERBS)}${noun[0]?.toUpperCase()}${noun.slice(1)}`;
}

function sourceFile(lines: number): string {
  const out = [`import { ${identifier()}, ${identifier()} } from './${random.pick(NAMES)}.js';`, ''];
  while (out.length < lines) {
    const name = identifier();
    out.push(`/** ${random.pick(VERBS)}s the ${random.pick(NAMES)} for a ${random.pick(NAMES)} request. */`);
    out.push(
      `export async function ${name}(input: ${random.pick(['string', 'Buffer', 'Request'])}, limit = ${random.int(1, 500)}): Promise<number> {`,
    );
    out.push(`  const ${random.pick(NAMES)} = await ${identifier()}(input);`);
    out.push(`  if (${random.pick(NAMES)}.length > limit) throw new RangeError('${name}: over ' + limit);`);
    out.push(`  return ${random.pick(NAMES)}.reduce((sum, item) => sum + item.${random.pick(NAMES)}, 0);`);
    out.push('}', '');
  }
  return out.join('\n');
}

function testOutput(): string {
  const lines = [` RUN  v4.1.12 /work/app`, ''];
  for (let index = random.int(5, 30); index > 0; index--) {
    lines.push(
      ` ${random.chance(0.9) ? '✓' : '×'} src/${random.pick(NAMES)}/${random.pick(NAMES)}.test.ts (${random.int(1, 40)} tests) ${random.int(2, 900)}ms`,
    );
  }
  lines.push(
    '',
    ` Test Files  ${random.int(1, 3)} failed | ${random.int(10, 40)} passed`,
    `      Tests  ${random.int(1, 9)} failed | ${random.int(100, 400)} passed`,
  );
  return lines.join('\n');
}

const messages: unknown[] = [
  {
    role: 'system',
    content:
      'You are a coding agent working in a TypeScript repository. Read files before you change them, run the tests after every change, and keep answers short.',
  },
  { role: 'user', content: 'The session tests fail since yesterday. Find out why and fix it.' },
];
for (let turn = 1; turn <= 40; turn++) {
  const id = `call_${turn.toString().padStart(3, '0')}`;
  const kind = turn % 5 === 0 ? 'run_tests' : turn % 3 === 0 ? 'search' : 'read_file';
  const path = `src/${random.pick(NAMES)}/${random.pick(NAMES)}.ts`;
  const args =
    kind === 'read_file'
      ? { path }
      : kind === 'search'
        ? { pattern: identifier(), path: 'src' }
        : { command: 'npm test' };
  messages.push({
    role: 'assistant',
    content: turn % 4 === 0 ? `Looking at ${path} next.` : null,
    tool_calls: [{ id, type: 'function', function: { name: kind, arguments: JSON.stringify(args) } }],
  });
  const result =
    kind === 'read_file'
      ? sourceFile(random.int(40, 160))
      : kind === 'search'
        ? Array.from(
            { length: random.int(3, 25) },
            () =>
              `src/${random.pick(NAMES)}/${random.pick(NAMES)}.ts:${random.int(1, 300)}:  await ${identifier()}(input);`,
          ).join('\n')
        : testOutput();
  messages.push({ role: 'tool', tool_call_id: id, content: result });
  if (turn === 20)
    messages.push({ role: 'user', content: 'Also check that the cache is flushed on shutdown.' });
}

const tools = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a file of the repository.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'search',
      description: 'Search the repository for a pattern.',
      parameters: {
        type: 'object',
        properties: { pattern: { type: 'string' }, path: { type: 'string' } },
        required: ['pattern'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'run_tests',
      description: 'Run a shell command.',
      parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
    },
  },
];

writeFileSync(
  new URL('../examples/long-session.json', import.meta.url),
  `${JSON.stringify({ model: 'gpt-4o-mini', messages, tools }, null, 1)}\n`,
);
