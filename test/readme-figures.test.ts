/**
 * The README's generated sections against the committed results (the drift check CI runs), and the
 * generator's own behaviour: only marked sections change, problems are named.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FIGURES } from '../bench/figures/index.js';
import { applyFigures, generateReadme, resultsFrom } from '../scripts/readme-figures.js';

const section = (name: string, body: string) => `<!-- figures:${name} -->\n${body}<!-- /figures:${name} -->`;

describe('the README figures', () => {
  it('are what bench/results/*.json give (run npm run readme:figures after a benchmark)', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const applied = generateReadme(readme, resultsFrom());
    expect(applied.problems).toEqual([]);
    expect(applied.unplaced).toEqual([]);
    expect(applied.changed).toEqual([]);
  });

  it('each state the file, command, date and machine they come from', () => {
    const results = resultsFrom();
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    for (const figure of FIGURES) {
      const start = readme.indexOf(`<!-- figures:${figure.name} -->`);
      const body = readme.slice(start, readme.indexOf(`<!-- /figures:${figure.name} -->`, start));
      for (const file of figure.files) {
        const stamp = results(file) as { command?: string; date?: string };
        expect(body, figure.name).toContain(`bench/results/${file}`);
        expect(body, figure.name).toContain(String(stamp.command));
        expect(body, figure.name).toContain(String(stamp.date).slice(0, 10));
      }
      expect(body, figure.name).toMatch(/\d+ cores/);
    }
  });
});

describe('applyFigures', () => {
  it('rewrites a section whose content differs and names it', () => {
    const text = `intro\n${section('a', 'old 1\n')}\nmiddle\n${section('b', 'same\n')}\nend\n`;
    const applied = applyFigures(text, (name) => (name === 'a' ? 'new 2\n' : 'same\n'));
    expect(applied.changed).toEqual(['a']);
    expect(applied.text).toBe(`intro\n${section('a', 'new 2\n')}\nmiddle\n${section('b', 'same\n')}\nend\n`);
  });

  it('leaves everything outside the markers as it was', () => {
    const prose = fc.string().filter((text) => !text.includes('<!--'));
    fc.assert(
      fc.property(prose, prose, prose, fc.string(), (before, between, after, body) => {
        const text = `${before}\n${section('x', 'stale\n')}\n${between}\n${section('y', 'stale\n')}\n${after}`;
        const applied = applyFigures(text, () => `${body}\n`);
        expect(applied.text).toBe(
          `${before}\n${section('x', `${body}\n`)}\n${between}\n${section('y', `${body}\n`)}\n${after}`,
        );
        // Generating again changes nothing.
        expect(applyFigures(applied.text, () => `${body}\n`).changed).toEqual([]);
      }),
    );
  });

  it('names a marker no figure has and one that is never closed', () => {
    const applied = applyFigures(`${section('nope', '')}\n<!-- figures:open -->\ntext\n`, () => undefined);
    expect(applied.problems).toHaveLength(2);
    expect(applied.problems[0]).toContain('figures:nope');
    expect(applied.problems[1]).toContain('figures:open');
  });

  it('lists the figures the text has no section for', () => {
    expect(applyFigures('no markers here\n', () => '').unplaced).toEqual(
      FIGURES.map((figure) => figure.name),
    );
  });
});

describe('resultsFrom', () => {
  it('says which result file is missing', () => {
    const results = resultsFrom(new URL('./fixtures/', import.meta.url));
    expect(() => results('no-such-result.json')).toThrow(/bench\/results\/no-such-result\.json is missing/);
  });
});
