/**
 * Type-checking a project that installed the packed package, as its author would: the repository's
 * own TypeScript, NodeNext resolution, `--strict`.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO } from './pack-package.js';

const run = promisify(execFile);

/** The compiler options every consumer project starts from. */
export const CONSUMER_COMPILER_OPTIONS = {
  target: 'ES2022',
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  strict: true,
  types: ['node'],
} as const;

/** Writes `name` in `directory` with `tsconfig` as its content. */
export function writeTsconfig(directory: string, name: string, tsconfig: Record<string, unknown>): void {
  writeFileSync(join(directory, name), JSON.stringify(tsconfig));
}

/** Runs tsc on `project` in `directory`; resolves with its error output, '' when it passed. */
export async function consumerTsc(directory: string, project: string, extra: string[] = []): Promise<string> {
  return run(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', project, ...extra], {
    cwd: directory,
    maxBuffer: 16 * 1024 * 1024,
  }).then(
    () => '',
    (error: { stdout?: string }) => String(error.stdout),
  );
}
