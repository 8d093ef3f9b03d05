import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SpillwayError } from '../core/index.js';
import { isInside, resolveWorkspacePath } from './workspace-path.js';

const NAMES = ['a', 'b', '..hidden', 'file.txt'] as const;
const SEGMENTS = [...NAMES, '..', '.', 'outside', 'secret.txt', 'new.txt'] as const;
/** Link targets: inside, outside, up and out, absolute, missing, and the link's own directory. */
const TARGETS = [
  'a',
  'b/file.txt',
  '.',
  '..',
  '../outside',
  '../outside/secret.txt',
  '../../etc',
  'missing',
  '../project/a',
  '@outside',
  '@project',
] as const;

type Node =
  | { name: string; kind: 'dir'; target?: undefined }
  | { name: string; kind: 'file'; target?: undefined }
  | { name: string; kind: 'link'; target: string };

const node = fc.oneof(
  fc.record({ name: fc.constantFrom(...NAMES), kind: fc.constantFrom('dir' as const, 'file' as const) }),
  fc.record({
    name: fc.constantFrom(...NAMES),
    kind: fc.constant('link' as const),
    target: fc.constantFrom(...TARGETS),
  }),
);
/** Nodes at the top and one level down (under the top-level directories). */
const layout = fc.record({ top: fc.array(node, { maxLength: 4 }), nested: fc.array(node, { maxLength: 4 }) });
const query = fc.oneof(
  fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/')),
  fc.constantFrom('/etc/passwd', '@outside/secret.txt', '@project/a', '@project/../outside'),
);

/** Creates the nodes (the first of each name); returns the directories made. */
function build(base: string, nodes: readonly Node[], outside: string, project: string): string[] {
  const used = new Set<string>();
  const directories: string[] = [];
  for (const entry of nodes) {
    if (used.has(entry.name)) continue;
    used.add(entry.name);
    const path = join(base, entry.name);
    if (entry.kind === 'dir') {
      mkdirSync(path);
      directories.push(path);
    } else if (entry.kind === 'file') writeFileSync(path, 'inside');
    else if (entry.target !== undefined)
      symlinkSync(
        entry.target === '@outside' ? outside : entry.target === '@project' ? project : entry.target,
        path,
      );
  }
  return directories;
}

/** The nearest existing ancestor of `path` (itself when it exists). */
async function nearest(path: string): Promise<{ existing: string; real: string }> {
  for (let current = path; ; current = dirname(current)) {
    try {
      return { existing: current, real: await realpath(current) };
    } catch {
      if (dirname(current) === current) throw new Error('no existing ancestor');
    }
  }
}

describe('resolveWorkspacePath on random layouts of links', () => {
  it('never accepts a path whose real location is outside the project, and accepts every real path inside', async () => {
    await fc.assert(
      fc.asyncProperty(layout, query, async ({ top, nested }, given) => {
        const base = realpathSync(mkdtempSync(join(tmpdir(), 'spillway-links-')));
        try {
          const project = join(base, 'project');
          const outside = join(base, 'outside');
          mkdirSync(project);
          mkdirSync(outside);
          writeFileSync(join(outside, 'secret.txt'), 'secret');
          for (const directory of build(project, top, outside, project))
            build(directory, nested, outside, project);
          const path = given.replace('@outside', outside).replace('@project', project);
          let accepted: Awaited<ReturnType<typeof resolveWorkspacePath>> | undefined;
          try {
            accepted = await resolveWorkspacePath({ root: project, path });
          } catch (error) {
            if (!SpillwayError.isInstance(error)) throw error;
            expect(['outside', 'dangling_link', 'link_loop']).toContain(error.data.reason);
          }
          // What the OS reaches from the path (normalized first, as the tools do).
          const lexical = resolve(project, path);
          const reached = await realpath(lexical).catch(() => undefined);
          if (accepted) {
            // The path acted on is real all the way to its nearest existing ancestor, and inside.
            expect(isInside(project, accepted.real)).toBe(true);
            const { existing, real } = await nearest(accepted.real);
            expect(real).toBe(existing);
            expect(isInside(project, real)).toBe(true);
            if (reached !== undefined) expect(accepted.real).toBe(reached);
          } else if (reached !== undefined) {
            // Refused although it exists: only because its real location is outside.
            expect(isInside(project, reached)).toBe(false);
          }
        } finally {
          rmSync(base, { recursive: true, force: true });
        }
      }),
      { numRuns: 150 },
    );
  });
});
