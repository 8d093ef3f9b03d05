/**
 * The figures of the README and of the pages under docs/, generated from the committed results in
 * bench/results/*.json.
 *
 * Every figure sits, in one of those documents, between `<!-- figures:NAME -->` and `<!-- /figures:NAME -->` (NAME one of
 * bench/figures' FIGURES); this script rewrites what is between the markers and nothing else, so the
 * rest of each document can be edited freely. Each section ends with the file it comes from, the command
 * that wrote that file, its date and the machine.
 *
 * `npm run readme:figures` writes the documents; `npm run check:readme` (and a test) fails when a
 * section differs from what the results give. Neither runs a benchmark.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FIGURES, type Figure, type ResultStamp, type Results, sourceLine } from '../bench/figures/index.js';

const ROOT = new URL('../', import.meta.url);
const RESULTS = new URL('../bench/results/', import.meta.url);
const MARKER = /<!-- figures:([a-z0-9-]+) -->\n([\s\S]*?)<!-- \/figures:\1 -->/g;
const OPENING = /<!-- figures:([a-z0-9-]+) -->/g;

/** Reads bench/results/<file> once, with a message that says what to run when it is missing. */
export function resultsFrom(directory: URL = RESULTS): Results {
  const cache = new Map<string, unknown>();
  return (file) => {
    if (!cache.has(file)) {
      let text: string;
      try {
        text = readFileSync(new URL(file, directory), 'utf8');
      } catch {
        throw new Error(`bench/results/${file} is missing: run the benchmark or evaluation that writes it`);
      }
      cache.set(file, JSON.parse(text));
    }
    return cache.get(file);
  };
}

/** A figure's section body: the rendering, then where it comes from. */
export function renderSection(figure: Figure, results: Results): string {
  const sources = figure.files.map((file) => ({ file, stamp: results(file) as ResultStamp }));
  return `${figure.render(results)}\n\n${sourceLine(sources)}\n`;
}

export interface Applied {
  text: string;
  /** Sections whose content changed. */
  changed: string[];
  /** Markers whose name no figure has, or that are not closed. */
  problems: string[];
  /** Figures with no section in the text. */
  unplaced: string[];
}

/** Replaces the content of every marked section with `render(name)`; the rest of `text` is kept. */
export function applyFigures(text: string, render: (name: string) => string | undefined): Applied {
  const changed: string[] = [];
  const problems: string[] = [];
  const placed = new Set<string>();
  const replaced = text.replace(MARKER, (whole, name: string, body: string) => {
    placed.add(name);
    const fresh = render(name);
    if (fresh === undefined) {
      problems.push(
        `<!-- figures:${name} --> names no figure; the figures are ${FIGURES.map((entry) => entry.name).join(', ')}`,
      );
      return whole;
    }
    if (fresh !== body) changed.push(name);
    return `<!-- figures:${name} -->\n${fresh}<!-- /figures:${name} -->`;
  });
  for (const match of text.matchAll(OPENING))
    if (!placed.has(match[1] as string))
      problems.push(`<!-- figures:${match[1]} --> has no <!-- /figures:${match[1]} --> after it`);
  const unplaced = FIGURES.map((entry) => entry.name).filter((name) => !placed.has(name));
  return { text: replaced, changed, problems, unplaced };
}

/** One document's text with its sections generated from `results`. */
export function generateDocument(text: string, results: Results): Applied {
  const byName = new Map(FIGURES.map((entry) => [entry.name, entry]));
  return applyFigures(text, (name) => {
    const figure = byName.get(name);
    return figure ? renderSection(figure, results) : undefined;
  });
}

/** A document with generated sections: the README or a page under docs/. */
export interface Document {
  /** The path from the repository's root, as messages name it. */
  path: string;
  text: string;
}

/** README.md and every Markdown page under docs/, as they are on disk. */
export function readDocuments(root: URL = ROOT): Document[] {
  const pages = readdirSync(new URL('docs/', root), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name.split(sep).join('/')}`);
  return ['README.md', ...pages].map((path) => ({ path, text: readFileSync(new URL(path, root), 'utf8') }));
}

/** What generating every document gives: each document applied, and the figures no document places. */
export interface Generated {
  documents: Array<Document & { applied: Applied }>;
  unplaced: string[];
}

/** Every document with its sections generated from `results`; a figure may stand in any of them. */
export function generateDocuments(documents: readonly Document[], results: Results): Generated {
  const applied = documents.map((document) => ({
    ...document,
    applied: generateDocument(document.text, results),
  }));
  const unplaced = FIGURES.map((entry) => entry.name).filter((name) =>
    applied.every((document) => document.applied.unplaced.includes(name)),
  );
  return { documents: applied, unplaced };
}

function main(): number {
  const check = process.argv.includes('--check');
  const generated = generateDocuments(readDocuments(), resultsFrom());
  let failed = false;
  for (const { path, applied } of generated.documents)
    for (const problem of applied.problems) {
      console.error(`${path}: ${problem}`);
      failed = true;
    }
  for (const name of generated.unplaced) {
    console.error(
      `no document has a section for the figure "${name}"; add <!-- figures:${name} --> … <!-- /figures:${name} --> to README.md or a page under docs/`,
    );
    failed = true;
  }
  if (failed) return 1;
  const stale = generated.documents.filter((document) => document.applied.changed.length > 0);
  if (check) {
    for (const { path, applied } of stale)
      console.error(
        `${path}: these sections differ from bench/results: ${applied.changed.join(', ')}; run npm run readme:figures (the results are what the documents must show)`,
      );
    return stale.length === 0 ? 0 : 1;
  }
  for (const { path, applied } of stale) {
    writeFileSync(new URL(path, ROOT), applied.text);
    console.log(`${path}: rewrote ${applied.changed.join(', ')}`);
  }
  if (stale.length === 0) console.log('README.md and docs/ are up to date');
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = main();
