/**
 * Real files for measuring token estimators: text files of many kinds drawn deterministically from
 * packages pinned in package-lock.json (JavaScript, minified bundles, source maps, TypeScript
 * declarations and sources, JSON, Markdown, licences, CSS and other text). Files are picked per
 * kind by a hash of their path, and split by the same hash into a training half (for
 * scripts/fit-estimator.ts) and a held-out half (for the tests and `npm run accuracy`), so the
 * estimator is judged on files it was not fitted on.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import type { CorpusSample } from './mixed-corpus.js';

export const REAL_FILE_KINDS = [
  'js',
  'minified',
  'map',
  'dts',
  'ts',
  'json',
  'md',
  'license',
  'other',
] as const;
export type RealFileKind = (typeof REAL_FILE_KINDS)[number];

/** Packages the files come from: pinned by the lockfile, so every checkout draws the same files. */
const PACKAGES = [
  'typescript',
  'zod',
  'vitest',
  'vite',
  'openai',
  '@anthropic-ai/sdk',
  'fast-check',
  'ioredis',
  '@modelcontextprotocol/sdk',
  'ai',
  'recheck',
  'express',
  'ajv',
  'highlight.js',
  'marked',
  'semver',
  'undici',
  'hono',
  'jose',
  'postcss',
  'source-map-js',
  'magic-string',
  'emojilib',
  'mime-db',
  'iconv-lite',
  'yargs',
  'chai',
  'tinybench',
  'pure-rand',
  'picomatch',
];

/** The longest text taken from one file, in characters (cut at a line end). */
const MAX_CHARS = 8_192;

const require = createRequire(import.meta.url);

function packageRoot(name: string): string | undefined {
  try {
    return dirname(require.resolve(`${name}/package.json`));
  } catch {
    return undefined;
  }
}

function walk(directory: string, files: string[]): void {
  for (const name of readdirSync(directory).sort()) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(directory, name);
    const stat = statSync(path);
    if (stat.isDirectory()) walk(path, files);
    else if (stat.size > 0 && stat.size < 4 * 1024 * 1024) files.push(path);
  }
}

function kindOf(path: string, text: string): RealFileKind | undefined {
  const name = path.split('/').at(-1) ?? '';
  if (/^(licen[cs]e|copying|notice)/i.test(name)) return 'license';
  if (name.endsWith('.map')) return 'map';
  if (name.endsWith('.d.ts') || name.endsWith('.d.mts') || name.endsWith('.d.cts')) return 'dts';
  if (/\.(m|c)?js$/.test(name)) {
    const lines = text.split('\n');
    return name.includes('.min.') || text.length / lines.length > 400 ? 'minified' : 'js';
  }
  if (/\.(m|c)?tsx?$/.test(name)) return 'ts';
  if (name.endsWith('.json')) return 'json';
  if (/\.(md|markdown)$/i.test(name)) return 'md';
  if (/\.(css|txt|ya?ml|html|scss|less|sh|py|flow|gz)$/i.test(name))
    return name.endsWith('.gz') ? undefined : 'other';
  return undefined;
}

/** FNV-1a of a path: the deterministic order files are drawn in. */
function hash(text: string): number {
  let value = 0x811c9dc5;
  for (let index = 0; index < text.length; index++)
    value = Math.imul(value ^ text.charCodeAt(index), 0x01000193);
  return value >>> 0;
}

function cut(text: string): string {
  if (text.length <= MAX_CHARS) return text;
  const end = text.lastIndexOf('\n', MAX_CHARS);
  let piece = text.slice(0, end > MAX_CHARS / 2 ? end + 1 : MAX_CHARS);
  if (/[\ud800-\udbff]$/.test(piece)) piece = piece.slice(0, -1);
  return piece;
}

let cached: Map<RealFileKind, Array<{ id: string; text: string; order: number }>> | undefined;

function candidates(): Map<RealFileKind, Array<{ id: string; text: string; order: number }>> {
  if (cached) return cached;
  const byKind = new Map<RealFileKind, Array<{ id: string; text: string; order: number }>>();
  for (const name of PACKAGES) {
    const root = packageRoot(name);
    if (!root) continue;
    const files: string[] = [];
    walk(root, files);
    for (const path of files) {
      const id = `${name}/${relative(root, path)}`;
      const text = readFileSync(path, 'utf8');
      if (text.includes('\u0000') || text.includes('\ufffd')) continue;
      const kind = kindOf(path, text);
      if (!kind || text.trim() === '') continue;
      const list = byKind.get(kind) ?? [];
      list.push({ id, text, order: hash(id) });
      byKind.set(kind, list);
    }
  }
  for (const list of byKind.values()) list.sort((a, b) => a.order - b.order || (a.id < b.id ? -1 : 1));
  cached = byKind;
  return byKind;
}

/**
 * Up to `perKind` real files of each kind, from the `half` the hash puts them in (`test`: held out;
 * `train`: for fitting). Each sample is at most 8 KB, cut at a line end.
 *
 * @example
 * const files = realFileSamples({ half: 'test', perKind: 45 });
 */
export function realFileSamples({
  half,
  perKind = 45,
}: {
  half: 'test' | 'train';
  perKind?: number;
}): CorpusSample[] {
  const samples: CorpusSample[] = [];
  for (const kind of REAL_FILE_KINDS) {
    const list = (candidates().get(kind) ?? []).filter(
      (file) => (file.order % 2 === 0) === (half === 'test'),
    );
    for (const file of list.slice(0, perKind))
      samples.push({ id: file.id, contentClass: `file_${kind}`, text: cut(file.text) });
  }
  return samples;
}
