/**
 * The package as npm publishes it: the sources built with `tsc -p tsconfig.build.json` (as
 * `npm run build` does, without the type check: same output, half the time) into a staging
 * directory of its own, so nothing needs a build before and the repository's `dist/` is never
 * touched; the manifest's `files` copied beside it; then `npm pack`.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The repository root. */
export const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** The fields of package.json the package tests read. */
export interface Manifest {
  name: string;
  version: string;
  files: string[];
  exports: Record<string, unknown>;
  dependencies: Record<string, string>;
  optionalDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
}

export const MANIFEST = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as Manifest;

/** A packed tarball: its path, its file name, and the files in it (paths inside `package/`). */
export interface PackedPackage {
  tarball: string;
  name: string;
  files: string[];
}

/** Builds and packs the package into `work` (which must exist). */
export async function packPackage(work: string): Promise<PackedPackage> {
  const stage = join(work, 'stage');
  mkdirSync(stage);
  await run(
    process.execPath,
    [
      join(REPO, 'node_modules/typescript/bin/tsc'),
      '-p',
      'tsconfig.build.json',
      '--noCheck',
      '--outDir',
      join(stage, 'dist'),
    ],
    { cwd: REPO, maxBuffer: 16 * 1024 * 1024 },
  );
  cpSync(join(REPO, 'package.json'), join(stage, 'package.json'));
  for (const entry of MANIFEST.files)
    if (entry !== 'dist') cpSync(join(REPO, entry), join(stage, entry), { recursive: true });
  const packed = await run('npm', ['pack', '--json', '--pack-destination', work], {
    cwd: stage,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [report] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  if (!report) throw new Error(`npm pack reported nothing: ${packed.stdout}`);
  return {
    tarball: join(work, report.filename),
    name: report.filename,
    files: report.files.map((file) => file.path),
  };
}
