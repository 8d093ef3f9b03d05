/**
 * @module
 * Seeded filler for scripted replies: English-like prose and TypeScript-like source lines. Words are
 * drawn from a list of words that are one token each in o200k and cl100k (with their leading space),
 * so N words come out at roughly N tokens; the emulator always reports the exact count it measured.
 */
import type { Random } from './random.js';

const WORDS = [
  'the',
  'of',
  'and',
  'to',
  'in',
  'is',
  'that',
  'for',
  'it',
  'as',
  'with',
  'on',
  'be',
  'by',
  'this',
  'are',
  'from',
  'at',
  'or',
  'an',
  'which',
  'have',
  'not',
  'but',
  'file',
  'function',
  'value',
  'test',
  'module',
  'error',
  'request',
  'change',
  'update',
  'check',
  'return',
  'type',
  'string',
  'number',
  'config',
  'option',
  'result',
  'handle',
  'call',
  'run',
  'build',
  'code',
  'line',
  'path',
  'read',
  'write',
  'first',
  'next',
  'then',
  'now',
  'also',
  'only',
  'each',
  'all',
  'some',
  'more',
  'new',
  'use',
  'should',
  'will',
  'can',
  'need',
  'make',
  'see',
  'look',
  'find',
  'fix',
  'add',
  'remove',
  'keep',
  'before',
  'after',
  'when',
  'where',
  'because',
  'so',
  'list',
  'name',
  'data',
  'state',
  'event',
  'server',
  'client',
  'cache',
  'output',
  'input',
  'case',
  'step',
  'point',
  'part',
  'way',
  'time',
] as const;

const IDENTIFIERS = [
  'request',
  'response',
  'options',
  'message',
  'result',
  'config',
  'cache',
  'buffer',
  'handler',
  'session',
  'window',
  'budget',
  'estimate',
  'limit',
  'index',
  'entry',
  'record',
  'stream',
  'token',
] as const;
const TYPES = [
  'string',
  'number',
  'boolean',
  'Message',
  'Options',
  'Result',
  'Request',
  'Record<string, unknown>',
] as const;

/** About `tokens` tokens of sentences. */
export function fillerProse(random: Random, tokens: number): string {
  const sentences: string[] = [];
  let words = 0;
  while (words < tokens) {
    const length = Math.min(random.int(6, 16), Math.max(1, tokens - words));
    const sentence: string[] = [];
    for (let index = 0; index < length; index += 1) sentence.push(random.pick(WORDS));
    const first = sentence[0] ?? 'the';
    sentence[0] = first.charAt(0).toUpperCase() + first.slice(1);
    sentences.push(`${sentence.join(' ')}.`);
    words += length + 1;
  }
  return sentences.join(' ');
}

function camel(random: Random): string {
  const head = random.pick(IDENTIFIERS);
  const tail = random.pick(IDENTIFIERS);
  return head + tail.charAt(0).toUpperCase() + tail.slice(1);
}

/** One plausible line of TypeScript source. */
export function sourceLine(random: Random): string {
  switch (random.int(0, 9)) {
    case 0:
      return `import { ${camel(random)} } from './${random.pick(IDENTIFIERS)}-${random.pick(IDENTIFIERS)}.js';`;
    case 1:
      return `export function ${camel(random)}(${random.pick(IDENTIFIERS)}: ${random.pick(TYPES)}): ${random.pick(TYPES)} {`;
    case 2:
      return `  const ${camel(random)} = ${random.pick(IDENTIFIERS)}.${random.pick(IDENTIFIERS)} ?? ${random.int(0, 4096)};`;
    case 3:
      return `  if (${random.pick(IDENTIFIERS)}.length > ${random.int(1, 512)}) return ${random.pick(IDENTIFIERS)};`;
    case 4:
      return `  // ${fillerProse(random, random.int(5, 14))}`;
    case 5:
      return `  ${random.pick(IDENTIFIERS)}.${camel(random)}(${random.pick(IDENTIFIERS)}, { ${random.pick(IDENTIFIERS)}: ${random.int(0, 99)} });`;
    case 6:
      return '}';
    case 7:
      return '';
    case 8:
      return `  for (const ${random.pick(IDENTIFIERS)} of ${camel(random)}) total += ${random.pick(IDENTIFIERS)}.size;`;
    default:
      return `  throw new Error(\`${random.pick(IDENTIFIERS)} \${${random.pick(IDENTIFIERS)}} is ${random.pick(WORDS)} ${random.pick(WORDS)}\`);`;
  }
}
