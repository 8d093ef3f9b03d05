/**
 * A mixed corpus for measuring token estimators: real text from packages pinned in package-lock.json
 * (READMEs, TypeScript's lib declarations and compiler source, its localized diagnostic messages in
 * Chinese, Japanese, Korean, Russian and eight European languages, minified bundles) cut into samples
 * at seeded offsets, plus generated classes (JSON tool arguments and results, shell output, Python,
 * emoji, random CJK, base64, hex ids). The same seed gives the same samples.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createRandom, type Random } from './random.js';

export const CONTENT_CLASSES = [
  'prose_en',
  'markdown',
  'latin_eu',
  'cyrillic',
  'cjk',
  'cjk_random',
  'emoji',
  'code_ts',
  'code_js',
  'code_py',
  'minified_js',
  'json_args',
  'json_results',
  'shell_output',
  'hex_ids',
  'base64',
] as const;

export type ContentClass = (typeof CONTENT_CLASSES)[number];

export interface CorpusSample {
  id: string;
  /** A {@link ContentClass}, or a real-file kind (`file_map`…) or a script (`script_armenian`…). */
  contentClass: string;
  text: string;
}

export interface CorpusOptions {
  seed: number;
  /** Samples per class. */
  samplesPerClass?: number;
  /** Longest sample in characters. */
  maxChars?: number;
}

const require = createRequire(import.meta.url);

function packageDir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

function readText(path: string): string {
  return readFileSync(path, 'utf8');
}

let sourcesCache: Map<string, string> | undefined;

/** Real source texts, loaded once. */
function sources(): Map<string, string> {
  if (sourcesCache) return sourcesCache;
  const ts = packageDir('typescript');
  const lib = join(ts, 'lib');
  const messages = (locale: string) => {
    const json = JSON.parse(readText(join(lib, locale, 'diagnosticMessages.generated.json'))) as Record<
      string,
      string
    >;
    return Object.values(json).join('\n');
  };
  const readmes = [
    'vitest',
    'vite',
    'typescript',
    'fast-check',
    'zod',
    'openai',
    'gpt-tokenizer',
    '@biomejs/biome',
    'magic-string',
    'picomatch',
    'tinybench',
    'pure-rand',
  ]
    .map((name) => {
      try {
        return readText(join(packageDir(name), 'README.md'));
      } catch {
        return '';
      }
    })
    .join('\n\n');
  const declarations = readdirSync(lib)
    .filter((file) => file.startsWith('lib.') && file.endsWith('.d.ts'))
    .sort()
    .map((file) => readText(join(lib, file)))
    .join('\n');
  const map = new Map<string, string>();
  map.set('markdown', readmes);
  map.set('prose_en', proseOnly(readmes));
  map.set('latin_eu', ['de', 'fr', 'es', 'it', 'pl', 'pt-br', 'cs', 'tr'].map(messages).join('\n'));
  map.set('cyrillic', messages('ru'));
  map.set('cjk', ['zh-cn', 'zh-tw', 'ja', 'ko'].map(messages).join('\n'));
  map.set('code_ts', declarations);
  map.set('code_js', readText(join(lib, '_tsc.js')).slice(0, 3_000_000));
  map.set('minified_js', minifiedSources());
  sourcesCache = map;
  return map;
}

/** The long lines of a minified bundle: recheck's Scala.js output. */
function minifiedSources(): string {
  return [join(packageDir('recheck'), 'lib', 'main.js')]
    .flatMap((file) => readText(file).split('\n'))
    .filter((line) => line.length > 1000)
    .join('\n');
}

/** Markdown without code fences, tables and links-only lines: the running text of the READMEs. */
function proseOnly(markdown: string): string {
  let inFence = false;
  const lines: string[] = [];
  for (const line of markdown.split('\n')) {
    if (line.trimStart().startsWith('```')) {
      inFence = !inFence;
      continue;
    }
    if (inFence || line.startsWith('|') || line.startsWith('<') || line.startsWith('[![')) continue;
    if (/[a-z]{3,} [a-z]{3,}/.test(line)) lines.push(line.replace(/[`*_#>]/g, ''));
  }
  return lines.join('\n');
}

function slice(random: Random, text: string, maxChars: number): string {
  const length = random.int(Math.min(40, maxChars), maxChars);
  const start = random.int(0, Math.max(0, text.length - length));
  let piece = text.slice(start, start + length);
  // Never start or end inside a surrogate pair.
  if (/^[\udc00-\udfff]/.test(piece)) piece = piece.slice(1);
  if (/[\ud800-\udbff]$/.test(piece)) piece = piece.slice(0, -1);
  return piece;
}

const WORDS = [
  'src',
  'lib',
  'test',
  'index',
  'utils',
  'config',
  'server',
  'client',
  'app',
  'core',
  'api',
  'user',
  'session',
  'token',
  'cache',
  'store',
  'router',
  'handler',
  'model',
  'view',
  'build',
  'dist',
  'types',
  'parser',
  'schema',
];
const EXT = ['ts', 'js', 'json', 'md', 'py', 'tsx', 'css', 'yaml'];

function path(random: Random): string {
  const depth = random.int(1, 4);
  const parts = Array.from({ length: depth }, () => random.pick(WORDS));
  return `${parts.join('/')}/${random.pick(WORDS)}${random.chance(0.3) ? `-${random.pick(WORDS)}` : ''}.${random.pick(EXT)}`;
}

function hex(random: Random, length: number): string {
  let out = '';
  for (let index = 0; index < length; index++) out += '0123456789abcdef'[random.int(0, 15)];
  return out;
}

function uuid(random: Random): string {
  return `${hex(random, 8)}-${hex(random, 4)}-4${hex(random, 3)}-${'89ab'[random.int(0, 3)]}${hex(random, 3)}-${hex(random, 12)}`;
}

function base64(random: Random, bytes: number): string {
  const buffer = Buffer.alloc(bytes);
  for (let index = 0; index < bytes; index++) buffer[index] = random.int(0, 255);
  return buffer.toString('base64');
}

function jsonValue(random: Random, depth: number): unknown {
  const roll = random.int(0, depth > 2 ? 5 : 8);
  switch (roll) {
    case 0:
      return random.int(-1000, 100000);
    case 1:
      return random.chance(0.5);
    case 2:
      return path(random);
    case 3:
      return uuid(random);
    case 4:
      return `${random.pick(WORDS)} ${random.pick(WORDS)} ${random.pick(['failed', 'ok', 'pending', 'skipped'])}`;
    case 5:
      return random.next() * 1000;
    case 6:
    case 7:
      return Array.from({ length: random.int(0, 5) }, () => jsonValue(random, depth + 1));
    default: {
      const object: Record<string, unknown> = {};
      for (let index = random.int(1, 6); index > 0; index--)
        object[`${random.pick(WORDS)}${random.chance(0.4) ? `_${random.pick(WORDS)}` : ''}`] = jsonValue(
          random,
          depth + 1,
        );
      return object;
    }
  }
}

function jsonArgs(random: Random): string {
  const kind = random.int(0, 4);
  const args =
    kind === 0
      ? { path: path(random) }
      : kind === 1
        ? { pattern: `${random.pick(WORDS)}\\(`, path: path(random), include: `*.${random.pick(EXT)}` }
        : kind === 2
          ? { command: `npm test -- ${path(random)}`, timeout_ms: random.int(1000, 120000) }
          : kind === 3
            ? {
                path: path(random),
                old_string: `const ${random.pick(WORDS)} = ${random.int(0, 99)};`,
                new_string: `const ${random.pick(WORDS)} = ${random.int(0, 99)};`,
              }
            : {
                query: `${random.pick(WORDS)} ${random.pick(WORDS)}`,
                limit: random.int(1, 50),
                id: uuid(random),
              };
  return JSON.stringify(args, null, random.chance(0.3) ? 2 : undefined);
}

function jsonResults(random: Random, maxChars: number): string {
  const items = [];
  let size = 0;
  const target = random.int(40, maxChars);
  while (size < target) {
    const item = jsonValue(random, 0);
    const text = JSON.stringify(item);
    size += text.length;
    items.push(item);
  }
  const text = JSON.stringify(
    { results: items, total: items.length, next_cursor: random.chance(0.5) ? base64(random, 12) : null },
    null,
    random.chance(0.5) ? 2 : undefined,
  );
  return text.slice(0, maxChars);
}

function shellOutput(random: Random, maxChars: number): string {
  const lines: string[] = [];
  const target = random.int(40, maxChars);
  let size = 0;
  const kinds = [
    () =>
      `-rw-r--r--  1 dev  staff  ${random.int(0, 99999).toString().padStart(6)} Nov ${random.int(1, 30)} ${random.int(10, 23)}:${random.int(10, 59)} ${path(random)}`,
    () =>
      `commit ${hex(random, 40)}\nAuthor: Dev ${random.pick(WORDS)} <dev@example.com>\n\n    fix(${random.pick(WORDS)}): handle ${random.pick(WORDS)} ${random.pick(WORDS)}`,
    () =>
      `    at ${random.pick(WORDS)}${random.pick(['Handler', 'Service', 'Router'])}.${random.pick(WORDS)} (/home/dev/app/${path(random)}:${random.int(1, 900)}:${random.int(1, 80)})`,
    () => ` ✓ ${path(random)} (${random.int(1, 40)} tests) ${random.int(1, 900)}ms`,
    () =>
      ` FAIL  ${path(random)} > ${random.pick(WORDS)} > ${random.pick(WORDS)} ${random.pick(WORDS)}\nAssertionError: expected ${random.int(0, 99)} to be ${random.int(0, 99)} // Object.is equality`,
    () =>
      `npm warn deprecated ${random.pick(WORDS)}@${random.int(0, 9)}.${random.int(0, 20)}.${random.int(0, 9)}: This package is no longer supported.`,
    () => `${random.pick(['M', 'A', 'D', '??'])} ${path(random)}`,
    () =>
      `${path(random)}:${random.int(1, 400)}:  const ${random.pick(WORDS)} = await ${random.pick(WORDS)}(${random.pick(WORDS)});`,
    () =>
      `[${random.int(0, 23).toString().padStart(2, '0')}:${random.int(0, 59).toString().padStart(2, '0')}:${random.int(0, 59).toString().padStart(2, '0')}] INFO  ${random.pick(WORDS)}: request ${uuid(random)} took ${random.int(1, 5000)}ms`,
    () => '='.repeat(random.int(10, 80)),
    () => `drwxr-xr-x ${random.int(2, 30)} root root 4096 Dec  2 14:28 ${random.pick(WORDS)}`,
  ];
  while (size < target) {
    const line = random.pick(kinds)();
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n').slice(0, maxChars);
}

function python(random: Random, maxChars: number): string {
  const blocks: string[] = [];
  let size = 0;
  const target = random.int(40, maxChars);
  while (size < target) {
    const name = `${random.pick(WORDS)}_${random.pick(WORDS)}`;
    const argument = random.pick(WORDS);
    const block = random.chance(0.5)
      ? `def ${name}(${argument}: str, limit: int = ${random.int(1, 100)}) -> list[str]:\n    """Return the ${random.pick(WORDS)} entries of ${argument}."""\n    results = []\n    for item in ${argument}.split("/"):\n        if item and len(results) < limit:\n            results.append(item.strip())\n    return results\n`
      : `class ${random.pick(['Config', 'Session', 'Store', 'Parser'])}${random.int(0, 99)}:\n    def __init__(self, ${argument}=None):\n        self.${argument} = ${argument} or {}\n\n    def get(self, key, default=None):\n        try:\n            return self.${argument}[key]\n        except KeyError:\n            raise ValueError(f"missing {key!r} in ${name}")\n`;
    blocks.push(block);
    size += block.length;
  }
  return blocks.join('\n').slice(0, maxChars);
}

// Single emoji, skin-tone modifiers, ZWJ families, flags and keycaps: the shapes chat text carries.
const EMOJI = [
  '😀',
  '😂',
  '🥲',
  '😍',
  '🤔',
  '🙃',
  '🔥',
  '✨',
  '🚀',
  '🎉',
  '👍',
  '👍🏽',
  '👩‍💻',
  '👨‍👩‍👧‍👦',
  '🏳️‍🌈',
  '🇯🇵',
  '🇩🇪',
  '❤️',
  '✅',
  '❌',
  '⚠️',
  '1️⃣',
  '🐛',
  '📦',
  '🧪',
  '🦀',
  '🐍',
  '🌍',
  '☕',
  '🤖',
];

function emoji(random: Random, maxChars: number): string {
  let out = '';
  const target = random.int(10, maxChars);
  while (out.length < target) {
    const roll = random.next();
    if (roll < 0.35) out += random.pick(EMOJI);
    else if (roll < 0.5) out += String.fromCodePoint(random.int(0x1f300, 0x1faff));
    else if (roll < 0.65) out += ' ';
    else out += `${random.pick(WORDS)}${random.chance(0.3) ? '!' : ''} `;
  }
  return out;
}

function cjkRandom(random: Random, maxChars: number): string {
  let out = '';
  const target = random.int(10, Math.floor(maxChars / 2));
  while (out.length < target) {
    out += String.fromCodePoint(random.int(0x4e00, 0x9fff));
    if (random.chance(0.05)) out += random.pick(['，', '。', ' ', '\n']);
  }
  return out;
}

function hexIds(random: Random, maxChars: number): string {
  const out: string[] = [];
  let size = 0;
  const target = random.int(8, maxChars);
  while (size < target) {
    const id = random.pick([
      () => uuid(random),
      () => hex(random, 40),
      () => hex(random, 64),
      () => `call_${hex(random, 24)}`,
      () => `toolu_01${base64(random, 16).replace(/[+/=]/g, '')}`,
    ])();
    out.push(id);
    size += id.length + 1;
  }
  return out.join(random.chance(0.5) ? '\n' : ' ').slice(0, maxChars);
}

/**
 * Builds the corpus: `samplesPerClass` samples of each {@link ContentClass}, deterministic in `seed`.
 *
 * @example
 * const samples = buildMixedCorpus({ seed: 1, samplesPerClass: 200 });
 */
export function buildMixedCorpus({
  seed,
  samplesPerClass = 150,
  maxChars = 4000,
}: CorpusOptions): CorpusSample[] {
  const random = createRandom(seed);
  const texts = sources();
  const samples: CorpusSample[] = [];
  for (const contentClass of CONTENT_CLASSES) {
    for (let index = 0; index < samplesPerClass; index++) {
      const source = texts.get(contentClass);
      let text: string;
      if (source !== undefined) text = slice(random, source, maxChars);
      else if (contentClass === 'json_args') text = jsonArgs(random);
      else if (contentClass === 'json_results') text = jsonResults(random, maxChars);
      else if (contentClass === 'shell_output') text = shellOutput(random, maxChars);
      else if (contentClass === 'code_py') text = python(random, maxChars);
      else if (contentClass === 'emoji') text = emoji(random, maxChars);
      else if (contentClass === 'cjk_random') text = cjkRandom(random, maxChars);
      else if (contentClass === 'hex_ids') text = hexIds(random, maxChars);
      else text = base64(random, random.int(3, Math.floor((maxChars * 3) / 4)));
      samples.push({ id: `${contentClass}-${seed}-${index}`, contentClass, text });
    }
  }
  return samples;
}
