/**
 * The real agent clients the client suite runs, installed from the npm registry at the versions
 * `pinned-clients.json` names into `.clients/` (ignored by git, never the project's dependencies).
 * Installs only what is missing or at another version, so a second call costs a few file reads.
 * Run as a script (`npx tsx test/real-clients/install-clients.ts`) it installs and prints the paths.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** Where the clients are installed. */
export const CLIENTS_DIR = join(root, '.clients');
const PINNED = JSON.parse(readFileSync(new URL('./pinned-clients.json', import.meta.url), 'utf8')) as Record<
  string,
  string
>;

/** The executables of the installed clients, by the name `spillway wrap` knows them by. */
export interface InstalledClients {
  /** A directory holding `claude`, `codex`, `opencode`, `pi` and `gemini`, for PATH. */
  bin: string;
  versions: Record<string, string>;
}

function installedVersion(name: string): string | undefined {
  const file = join(CLIENTS_DIR, 'node_modules', name, 'package.json');
  if (!existsSync(file)) return undefined;
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/**
 * Claude Code's npm package is a launcher whose install script copies the platform's native binary
 * (an optional dependency from the registry) over a placeholder; npm does not run install scripts
 * of packages it was not told to trust, so the binary is linked from the platform package instead.
 */
function claudeBinary(): string {
  const platform = `${process.platform}-${process.arch}`;
  const binary = join(CLIENTS_DIR, 'node_modules', '@anthropic-ai', `claude-code-${platform}`, 'claude');
  if (!existsSync(binary)) throw new Error(`Claude Code has no native binary for ${platform} at ${binary}`);
  return binary;
}

function link(target: string, path: string): void {
  if (existsSync(path)) unlinkSync(path);
  symlinkSync(target, path);
}

/** Installs the pinned clients where they are missing; returns where they are. */
export function installClients(): InstalledClients {
  const missing = Object.entries(PINNED).filter(([name, version]) => installedVersion(name) !== version);
  if (missing.length > 0) {
    mkdirSync(CLIENTS_DIR, { recursive: true });
    execFileSync(
      'npm',
      [
        'install',
        '--prefix',
        CLIENTS_DIR,
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        ...missing.map(([name, version]) => `${name}@${version}`),
      ],
      { stdio: ['ignore', 'ignore', 'inherit'], timeout: 600_000 },
    );
  }
  const bin = join(CLIENTS_DIR, 'bin');
  mkdirSync(bin, { recursive: true });
  const modules = join(CLIENTS_DIR, 'node_modules', '.bin');
  link(claudeBinary(), join(bin, 'claude'));
  for (const name of ['codex', 'opencode', 'pi', 'gemini']) link(join(modules, name), join(bin, name));
  const versions = Object.fromEntries(
    Object.keys(PINNED).map((name) => [name, installedVersion(name) ?? '']),
  );
  return { bin, versions };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const installed = installClients();
  process.stdout.write(`${JSON.stringify(installed, null, 2)}\n`);
}
