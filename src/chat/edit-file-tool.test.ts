import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SpillwayError } from '../core/index.js';
import type { ActionRequest } from './confirm-action.js';
import { createEditFileTool } from './edit-file-tool.js';

function setup(answer = true) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'spillway-edit-')));
  writeFileSync(join(root, 'a.ts'), 'const a = 1;\nconst b = 2;\nconst c = 1;\n');
  const asked: ActionRequest[] = [];
  const tool = createEditFileTool({
    root,
    confirm: async (request) => {
      asked.push(request);
      return answer;
    },
  });
  const run = (args: unknown) => tool.execute(args, { callId: 'call_1' });
  const failure = (args: unknown) =>
    Promise.resolve(run(args)).then(
      () => undefined,
      (error: unknown) => (SpillwayError.isInstance(error) ? error.data : { error: String(error) }),
    );
  return { root, asked, run, failure, text: () => readFileSync(join(root, 'a.ts'), 'utf8') };
}

describe('edit_file', () => {
  it('replaces the one occurrence after the user saw the diff', async () => {
    const { run, asked, text } = setup();
    expect(await run({ path: 'a.ts', old_string: 'const b = 2;', new_string: 'const b = 3;' })).toBe(
      'edited a.ts: 1 replacement at line 2',
    );
    expect(text()).toBe('const a = 1;\nconst b = 3;\nconst c = 1;\n');
    expect(asked).toEqual([
      {
        tool: 'edit_file',
        summary: 'edit a.ts (1 replacement at line 2)',
        preview:
          '--- a.ts\n+++ a.ts\n@@ -1,3 +1,3 @@\n const a = 1;\n-const b = 2;\n+const b = 3;\n const c = 1;\n',
      },
    ]);
  });

  it('refuses text that is not in the file, and text found more than once unless replace_all', async () => {
    const { failure, run, text, asked } = setup();
    expect(await failure({ path: 'a.ts', old_string: 'const d', new_string: 'x' })).toMatchObject({
      reason: 'no_match',
      matches: 0,
    });
    expect(await failure({ path: 'a.ts', old_string: '= 1;', new_string: '= 9;' })).toMatchObject({
      reason: 'many_matches',
      matches: 2,
      lines: [1, 3],
    });
    expect(asked).toEqual([]);
    expect(text()).toBe('const a = 1;\nconst b = 2;\nconst c = 1;\n');
    expect(await run({ path: 'a.ts', old_string: '= 1;', new_string: '= 9;', replace_all: true })).toBe(
      'edited a.ts: 2 replacements at lines 1, 3',
    );
    expect(text()).toBe('const a = 9;\nconst b = 2;\nconst c = 9;\n');
  });

  it('changes nothing when the user refuses, or when the edit changes nothing', async () => {
    const { failure, text } = setup(false);
    expect(await failure({ path: 'a.ts', old_string: 'const b', new_string: 'let b' })).toMatchObject({
      reason: 'refused',
    });
    expect(await failure({ path: 'a.ts', old_string: 'const b', new_string: 'const b' })).toMatchObject({
      reason: 'no_change',
    });
    expect(await failure({ path: 'missing.ts', old_string: 'a', new_string: 'b' })).toMatchObject({
      reason: 'no_file',
    });
    expect(text()).toBe('const a = 1;\nconst b = 2;\nconst c = 1;\n');
  });
});
