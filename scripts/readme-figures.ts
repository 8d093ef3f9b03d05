/**
 * The README's figures, generated from the committed results in bench/results/*.json.
 *
 * Every figure sits between `<!-- figures:NAME -->` and `<!-- /figures:NAME -->` (NAME one of
 * bench/figures' FIGURES); this script rewrites what is between the markers and nothing else, so the
 * rest of the README can be edited freely. Each section ends with the file it comes from, the command
 * that wrote that file, its date and the machine.
 *
 * `npm run readme:figures` writes the README; `npm run check:readme` (and a test) fails when a
 * section differs from what the results give. Neither runs a benchmark.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { FIGURES, type Figure, type ResultStamp, type Results, sourceLine } from '../bench/figures/index.js';

const README = new URL('../README.md', import.meta.url);
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

/** The README with its sections generated from `results`. */
export function generateReadme(readme: string, results: Results): Applied {
  const byName = new Map(FIGURES.map((entry) => [entry.name, entry]));
  return applyFigures(readme, (name) => {
    const figure = byName.get(name);
    return figure ? renderSection(figure, results) : undefined;
  });
}

function main(): number {
  const check = process.argv.includes('--check');
  const readme = readFileSync(README, 'utf8');
  const applied = generateReadme(readme, resultsFrom());
  for (const problem of applied.problems) console.error(`README.md: ${problem}`);
  for (const name of applied.unplaced)
    console.error(
      `README.md: no section for the figure "${name}"; add <!-- figures:${name} --> … <!-- /figures:${name} -->`,
    );
  if (applied.problems.length > 0 || applied.unplaced.length > 0) return 1;
  if (check) {
    if (applied.changed.length === 0) return 0;
    console.error(
      `README.md: these sections differ from bench/results: ${applied.changed.join(', ')}; run npm run readme:figures (the results are what the README must show)`,
    );
    return 1;
  }
  if (applied.changed.length > 0) writeFileSync(README, applied.text);
  console.log(
    applied.changed.length === 0
      ? 'README.md is up to date'
      : `README.md: rewrote ${applied.changed.join(', ')}`,
  );
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = main();
