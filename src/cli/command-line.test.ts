import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { COMMANDS } from './command-list.js';
import { setErrorStyle } from './io.js';
import { run } from './main.js';

const scratch = mkdtempSync(join(tmpdir(), 'spillway-cli-'));

/** Runs the command line in this process, with what it writes to stdout and stderr. */
async function spillway(...argv: string[]): Promise<{ exit: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  try {
    const exit = await run(argv);
    return { exit, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

describe('errors of the command line', () => {
  beforeEach(() => setErrorStyle({ json: true, command: undefined, usage: undefined }));
  afterEach(() => setErrorStyle({ json: true, command: undefined, usage: undefined }));

  it('say an unknown flag in one JSON line when piped, with the flag it most likely meant', async () => {
    const { exit, stdout, stderr } = await spillway('estimate', '--modle', 'gpt-4o', 'request.json');
    expect(exit).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(stderr)).toEqual({
      error: {
        code: 'invalid_argument',
        message: 'unknown option --modle; did you mean --model? (spillway estimate --help shows its options)',
      },
    });
  });

  it('say a missing or unwanted value in one line', async () => {
    expect(
      JSON.parse((await spillway('fit', 'request.json', '--context-length')).stderr).error.message,
    ).toMatch(/^--context-length needs a value/);
    expect(
      JSON.parse((await spillway('estimate', '--exact=yes', 'request.json')).stderr).error.message,
    ).toMatch(/^--exact takes no value/);
  });

  it('are a line for a person at a terminal, with the command’s usage after a mistake in the command line', async () => {
    setErrorStyle({ json: false });
    const { exit, stderr } = await spillway('estimate', '--modle', 'gpt-4o', 'request.json');
    expect(exit).toBe(2);
    const [first, blank, usage] = stderr.split('\n');
    expect(first).toBe('spillway estimate: unknown option --modle; did you mean --model?');
    expect(blank).toBe('');
    expect(usage).toMatch(/^usage: spillway estimate FILE\|-/);
    expect(stderr).not.toContain('{"error"');
  });

  it('are JSON with --json, even at a terminal', async () => {
    setErrorStyle({ json: false });
    const { exit, stderr } = await spillway('estimate', join(scratch, 'missing.json'), '--json');
    expect(exit).toBe(2);
    expect(JSON.parse(stderr).error.code).toBe('invalid_argument');
  });

  it('say a failure that is no mistake in the command line without the usage', async () => {
    setErrorStyle({ json: false });
    const { stderr } = await spillway('estimate', join(scratch, 'missing.json'));
    expect(stderr).toBe(`spillway estimate: cannot read ${join(scratch, 'missing.json')}: ENOENT\n`);
  });

  it('name an unknown command and list the commands to a person', async () => {
    setErrorStyle({ json: false });
    const { exit, stderr } = await spillway('estmate');
    expect(exit).toBe(2);
    expect(stderr).toMatch(/^spillway: unknown command "estmate"; spillway --help lists the commands\n\n/);
    expect(stderr).toContain('  estimate   token estimate of a request');
  });

  it('exit 3 with the context_truncated error when nothing fits', async () => {
    const request = join(scratch, 'long.json');
    writeFileSync(
      request,
      JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'word '.repeat(5_000) }] }),
    );
    const { exit, stderr } = await spillway('fit', request, '--context-length', '1000');
    expect(exit).toBe(3);
    expect(JSON.parse(stderr).error.code).toBe('context_truncated');
  });
});

describe('spillway classify on what is no error body', () => {
  it('says so in a note before the pattern', async () => {
    const reply = join(scratch, 'reply.json');
    writeFileSync(
      reply,
      JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'Hello.' } }] }),
    );
    const { exit, stdout } = await spillway('classify', reply);
    expect(exit).toBe(0);
    const result = JSON.parse(stdout);
    expect(result.kind).toBe('none');
    expect(result.note).toMatch(/^the input is a model's reply, not an error body/);
    expect(Object.keys(result)).toEqual(['kind', 'note', 'pattern']);
  });

  it('adds no note to an error body that is no overflow', async () => {
    const limited = join(scratch, 'rate.json');
    writeFileSync(limited, '{"error":{"type":"rate_limit_error","message":"Number of requests exceeded"}}');
    const result = JSON.parse((await spillway('classify', limited, '--status', '429')).stdout);
    expect(result).toEqual({ kind: 'none', pattern: 'rate-limit' });
  });
});

describe('spillway --help', () => {
  it('lists every command with its own summary', async () => {
    const { exit, stdout } = await spillway('--help');
    expect(exit).toBe(0);
    for (const [name, entry] of Object.entries(COMMANDS)) {
      expect((await entry.load()).summary).toBe(entry.summary);
      expect(stdout).toContain(`  ${name.padEnd(10)} ${entry.summary}\n`);
    }
  });

  it('loads no command: the entry point imports the command list alone, and it only types', () => {
    const imports = (file: string) =>
      [
        ...readFileSync(new URL(file, import.meta.url), 'utf8').matchAll(
          /^import (type )?.* from '([^']+)';$/gm,
        ),
      ].map((match) => ({ typeOnly: match[1] !== undefined, from: match[2] }));
    expect(imports('./main.ts')).toEqual([{ typeOnly: false, from: './command-list.js' }]);
    expect(imports('./command-list.ts').every((entry) => entry.typeOnly)).toBe(true);
  });
});
