/**
 * What a project that adds Spillway installs, from bench/results/install.json (written by
 * `SPILLWAY_UPDATE_RESULTS=1 npx vitest run test/e2e/package-install.test.ts`).
 */
import { count, fixed } from './format.js';

interface InstallFigures {
  command: string;
  packages: string[];
  package_count: number;
  bytes: number;
  megabytes: number;
  install_scripts: string[];
}

export interface InstallResult {
  aims: { max_packages: number; max_bytes: number };
  tarball: { files: number; source_maps: number };
  library: InstallFigures;
  default: InstallFigures;
  root_import_ms: { median: number; runs: number[] };
}

function row(what: string, installed: InstallFigures): string {
  const packages = installed.packages.map((name) => `\`${name}\``).join(', ');
  return `| ${what}: \`${installed.command}\` | ${installed.package_count} (${packages}) | ${fixed(installed.megabytes)} MB | ${installed.install_scripts.length} |`;
}

/** The two installs side by side, then the root import time and the aims. */
export function installTable(result: InstallResult): string {
  const { aims, library, root_import_ms: importMs, tarball } = result;
  return [
    '| install | packages | size | install scripts |',
    '| --- | --- | --- | --- |',
    row('the library alone', library),
    row('with the command line', result.default),
    '',
    `Importing the root (\`import('spillway')\`) in a fresh process takes a median of ${fixed(importMs.median, 0)} ms over ${importMs.runs.length} runs. The aims for the library alone, asserted by the test: at most ${aims.max_packages} packages and ${count(aims.max_bytes / 1_000_000)} MB. The tarball holds ${count(tarball.files)} files, ${tarball.source_maps} of them source maps.`,
  ].join('\n');
}
