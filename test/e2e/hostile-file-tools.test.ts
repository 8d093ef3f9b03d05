/**
 * The file tools against a project that changes under them. The user approves a write to a path;
 * before the write, something swaps a directory on that path for a link to a folder outside the
 * project, creates a missing directory as such a link, or puts another file in the approved one's
 * place. A hard link inside the project to a file outside lets a write reach that file. Each write
 * must be refused and nothing outside the project may change.
 */
import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { ConfirmAction } from '../../src/chat/confirm-action.js';
import { createFileTools } from '../../src/chat/file-tools.js';
import { recordHostile, writeHostileResults } from '../support/hostile-results.js';

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
  writeHostileResults(fileURLToPath(import.meta.url));
});

/** A project and a folder beside it, outside it. */
function workspace() {
  const base = mkdtempSync(join(tmpdir(), 'spillway-hostile-files-'));
  directories.push(base);
  const project = join(base, 'project');
  const outside = join(base, 'outside');
  mkdirSync(project);
  mkdirSync(outside);
  return { project, outside };
}

/** The tool named `name`, with `confirm` deciding (and attacking) when asked. */
function tool(project: string, name: string, confirm: ConfirmAction) {
  const found = createFileTools({ root: project, confirm }).find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

/** Runs a tool call; the error message when it fails. */
async function attempt(run: () => unknown): Promise<string | undefined> {
  try {
    await run();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function count(refused: boolean, outsideChanged: boolean): void {
  recordHostile('file_tools', {
    attacks: 1,
    refused: refused ? 1 : 0,
    outside_changed: outsideChanged ? 1 : 0,
  });
}

describe('a write approved for one place', () => {
  it('is refused when a directory on its path became a link to outside the project', async () => {
    const { project, outside } = workspace();
    mkdirSync(join(project, 'sub'));
    const write = tool(project, 'write_file', async () => {
      renameSync(join(project, 'sub'), join(project, 'sub-moved'));
      symlinkSync(outside, join(project, 'sub'));
      return true;
    });
    const error = await attempt(() =>
      write.execute({ path: 'sub/a.txt', content: 'approved text' }, { callId: 'c' }),
    );
    const landed = existsSync(join(outside, 'a.txt'));
    count(error !== undefined, landed);
    expect(error).toMatch(/symbolic link|changed since you approved/);
    expect(landed).toBe(false);
  });

  it('is refused when a missing directory on its path was created as a link to outside', async () => {
    const { project, outside } = workspace();
    const write = tool(project, 'write_file', async () => {
      symlinkSync(outside, join(project, 'deep'));
      return true;
    });
    const error = await attempt(() =>
      write.execute({ path: 'deep/er/a.txt', content: 'approved text' }, { callId: 'c' }),
    );
    const landed = existsSync(join(outside, 'er'));
    count(error !== undefined, landed);
    expect(error).toMatch(/appeared since you approved|symbolic link|changed since you approved/);
    expect(landed).toBe(false);
  });

  it('is refused when another file took the approved file’s place', async () => {
    const { project, outside } = workspace();
    writeFileSync(join(project, 'a.txt'), 'const a = 1;\n');
    writeFileSync(join(outside, 'other.txt'), 'const a = 1;\n');
    const edit = tool(project, 'edit_file', async () => {
      // A link would be refused outright; a hard link to a file outside, moved into place, is subtler.
      linkSync(join(outside, 'other.txt'), join(project, 'swap.txt'));
      renameSync(join(project, 'swap.txt'), join(project, 'a.txt'));
      return true;
    });
    const error = await attempt(() =>
      edit.execute(
        { path: 'a.txt', old_string: 'const a = 1;', new_string: 'const a = 2;' },
        { callId: 'c' },
      ),
    );
    const changed = readFileSync(join(outside, 'other.txt'), 'utf8') !== 'const a = 1;\n';
    count(error !== undefined, changed);
    expect(error).toMatch(/changed since you approved|hard links/);
    expect(changed).toBe(false);
  });
});

describe('a file with another hard link', () => {
  it('is neither edited nor overwritten, so the file outside it links to stays as it was', async () => {
    const { project, outside } = workspace();
    writeFileSync(join(outside, 'secret.txt'), 'token = 1\n');
    linkSync(join(outside, 'secret.txt'), join(project, 'notes.txt'));
    let asked = 0;
    const confirm: ConfirmAction = async () => {
      asked++;
      return true;
    };
    const edit = await attempt(() =>
      tool(project, 'edit_file', confirm).execute(
        { path: 'notes.txt', old_string: 'token = 1', new_string: 'token = 2' },
        { callId: 'c' },
      ),
    );
    const write = await attempt(() =>
      tool(project, 'write_file', confirm).execute(
        { path: 'notes.txt', content: 'token = 3\n' },
        { callId: 'c' },
      ),
    );
    const changed = readFileSync(join(outside, 'secret.txt'), 'utf8') !== 'token = 1\n';
    count(edit !== undefined, changed);
    count(write !== undefined, changed);
    expect(edit).toMatch(/2 hard links/);
    expect(write).toMatch(/2 hard links/);
    expect(asked).toBe(0);
    expect(changed).toBe(false);
  });
});
