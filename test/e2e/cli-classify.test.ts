import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadOverflowFixtures, OVERFLOW_FIXTURE_FILES } from '../fixtures/overflow/overflow-fixtures.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'spillway-classify-'));

function spillway(args: string[], input?: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(tsx, ['src/cli/bin.ts', ...args], { cwd: root, input, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function file(name: string, text: string): string {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
}

describe('spillway classify', () => {
  it('classifies one body from standard input with its figures, output_limit in snake_case', () => {
    const cap =
      '{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-5"}}';
    const { status, stdout } = spillway(['classify', '--status', '400'], cap);
    expect(status).toBe(0);
    expect(stdout).toBe(
      '{"kind":"output_cap","output":100000,"output_limit":64000,"pattern":"anthropic-max-tokens-above-output-maximum"}\n',
    );
  });

  it('lets --status gate generic wording and leaves absent figures out', () => {
    const body = 'Error: Message exceeds token limit.';
    expect(JSON.parse(spillway(['classify', '--status', '400'], body).stdout)).toEqual({
      kind: 'context',
      pattern: 'generic-token-limit-exceeded',
    });
    expect(JSON.parse(spillway(['classify', '--status', '500'], body).stdout)).toEqual({
      kind: 'none',
      pattern: 'no-match',
    });
  });

  it('classifies a batch in order, with the id first, and agrees with every labelled kind', () => {
    const rows = loadOverflowFixtures(OVERFLOW_FIXTURE_FILES.corpus);
    const batch = rows
      .map((row) => JSON.stringify({ id: row.id, body: row.body, http_status: row.http_status }))
      .join('\n');
    const { status, stdout, stderr } = spillway(['classify', '--batch', file('corpus.jsonl', `${batch}\n`)]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const results = stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(results.map((result) => result.id)).toEqual(rows.map((row) => row.id));
    expect(results.map((result) => result.kind)).toEqual(rows.map((row) => row.expected_kind));
    expect(Object.keys(results[0])[0]).toBe('id');
    for (const result of results) expect(Object.keys(result).at(-1)).toBe('pattern');
  });

  it('reads a batch of 1,000 rows from standard input', () => {
    const rows = loadOverflowFixtures(OVERFLOW_FIXTURE_FILES.nib);
    const lines = Array.from({ length: 1_000 }, (_, index) => {
      const row = rows[index % rows.length];
      return JSON.stringify({ id: index, body: row?.body, http_status: row?.http_status ?? null });
    });
    const { status, stdout } = spillway(['classify', '--batch', '-'], lines.join('\n'));
    expect(status).toBe(0);
    const ids = stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line).id);
    expect(ids).toEqual(Array.from({ length: 1_000 }, (_, index) => index));
  });

  it('fails a malformed batch line with its line number, exit 2 and nothing on stdout', () => {
    const batch = file('bad.jsonl', '{"id":"a","body":"x","http_status":400}\n\n{"id":"b","body":\n');
    const { status, stdout, stderr } = spillway(['classify', '--batch', batch]);
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(JSON.parse(stderr).error).toMatchObject({ code: 'invalid_argument' });
    expect(JSON.parse(stderr).error.message).toMatch(/^line 3 of .*bad\.jsonl is not valid JSON/);
    const noBody = spillway(['classify', '--batch', file('nobody.jsonl', '{"id":1,"http_status":400}\n')]);
    expect(noBody.status).toBe(2);
    expect(JSON.parse(noBody.stderr).error.message).toMatch(/line 1 of .* has no "body"/);
  });

  it('tries --patterns rows first and rejects a hostile one at load time', () => {
    const patterns = file(
      'patterns.json',
      JSON.stringify({
        overflow_patterns: [
          { name: 'acme-window', kind: 'context', regex: 'acme: prompt (?<input>\\d+) over (?<window>\\d+)' },
        ],
      }),
    );
    expect(
      JSON.parse(spillway(['classify', '--patterns', patterns], 'acme: prompt 9000 over 8192').stdout),
    ).toEqual({
      kind: 'context',
      window: 8192,
      input: 9000,
      pattern: 'acme-window',
    });
    const hostile = file(
      'hostile.json',
      JSON.stringify([{ name: 'hostile', kind: 'context', regex: '(a)\\1+$' }]),
    );
    const { status, stderr } = spillway(['classify', '--patterns', hostile], 'aaaa');
    expect(status).toBe(2);
    expect(JSON.parse(stderr).error).toMatchObject({ code: 'invalid_config', name: 'hostile' });
  });

  it('is listed by spillway --help and rejects a status outside 100-599', () => {
    expect(spillway(['--help']).stdout).toMatch(/classify/);
    expect(spillway(['classify', '--status', '42'], 'x').status).toBe(2);
  });
});
