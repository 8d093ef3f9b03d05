/**
 * The package as a project that adds it gets it: the packed tarball installed from the npm registry
 * into fresh projects, with npm's own handling of peers (an optional peer is never installed).
 *
 * - `npm install --omit=optional`: the library alone (core and adapters). Its package count,
 *   install size and root import time are the README's "What gets installed" figures; the aims (at
 *   most 10 packages and 5 MB) are asserted. An optional part it lacks fails with
 *   `missing_dependency`, naming the package.
 * - `npm install` with the defaults: the command line's parts come too (the optional
 *   dependencies); the command line runs from that project.
 *
 * `SPILLWAY_UPDATE_RESULTS=1` writes the figures to bench/results/install.json (`npm run readme:figures`
 * then puts them in the README).
 */
import { execFile, spawn } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStamp } from '../../bench/stamp.js';
import { startEmulator } from '../../src/emulator/index.js';
import { CONSUMER_COMPILER_OPTIONS, consumerTsc, writeTsconfig } from '../support/consumer-typescript.js';
import { median } from '../support/median.js';
import { MANIFEST, type PackedPackage, packPackage, REPO } from '../support/pack-package.js';

const run = promisify(execFile);
/** The aims for the library alone: at most this many packages and bytes in node_modules. */
const MAX_PACKAGES = 10;
const MAX_BYTES = 5_000_000;
/** Fresh processes timed per import. */
const IMPORT_RUNS = 7;
const RESULTS_PATH = join(REPO, 'bench/results/install.json');

/** What one install put in node_modules. */
interface InstallFigures {
  command: string;
  /** Installed packages, the library included, by name (from npm's node_modules/.package-lock.json). */
  packages: string[];
  /** Bytes of every file under node_modules (what `du --apparent-size` counts). */
  bytes: number;
  files: number;
  /** Installed packages with an install script (npm runs them and warns about them). */
  install_scripts: string[];
}

let work: string;
let packed: PackedPackage;
let lean: string;
let full: string;
const figures: { lean?: InstallFigures; full?: InstallFigures; rootImportMs?: number[] } = {};

function node(args: string[], cwd: string) {
  return run(process.execPath, args, { cwd, maxBuffer: 16 * 1024 * 1024 });
}

function sizeOf(directory: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      const inner = sizeOf(path);
      bytes += inner.bytes;
      files += inner.files;
    } else if (entry.isFile()) {
      bytes += lstatSync(path).size;
      files += 1;
    }
  }
  return { bytes, files };
}

/** A fresh project with the tarball installed by `npm install ...flags`, and what it installed. */
async function install(
  name: string,
  flags: string[],
): Promise<{ directory: string; figures: InstallFigures }> {
  const directory = join(work, name);
  mkdirSync(directory);
  writeFileSync(join(directory, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  const args = ['install', packed.tarball, ...flags, '--no-audit', '--no-fund', '--prefer-offline'];
  await run('npm', args, { cwd: directory, maxBuffer: 16 * 1024 * 1024 });
  const lock = JSON.parse(readFileSync(join(directory, 'node_modules/.package-lock.json'), 'utf8')) as {
    packages: Record<string, { hasInstallScript?: boolean }>;
  };
  const entries = Object.entries(lock.packages).filter(([path]) => path.startsWith('node_modules/'));
  const nameOf = (path: string) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
  return {
    directory,
    figures: {
      command: `npm install spillway ${flags.join(' ')}`.trim(),
      packages: entries.map(([path]) => nameOf(path)).sort(),
      ...sizeOf(join(directory, 'node_modules')),
      install_scripts: entries.filter(([, meta]) => meta.hasInstallScript).map(([path]) => nameOf(path)),
    },
  };
}

/** Milliseconds a fresh Node process takes to import `specifier`. */
async function importTime(specifier: string, cwd: string): Promise<number> {
  const script = `const start = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - start));`;
  const { stdout } = await node(['--input-type=module', '--eval', script], cwd);
  return Number(stdout);
}

/** The error an expression rejects or throws with, as `{ code, package }`. */
async function failureOf(expression: string, cwd: string): Promise<unknown> {
  const script = `try { await (async () => { ${expression} })(); console.log('{}'); } catch (error) { console.log(JSON.stringify({ code: error.code, package: error.data?.package, message: error.message })); }`;
  const { stdout } = await node(['--input-type=module', '--eval', script], cwd);
  return JSON.parse(stdout);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'spillway-install-'));
  packed = await packPackage(work);
  const installs = await Promise.all([install('lean', ['--omit=optional']), install('full', [])]);
  lean = installs[0].directory;
  figures.lean = installs[0].figures;
  full = installs[1].directory;
  figures.full = installs[1].figures;
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the library alone (npm install --omit=optional)', () => {
  it('installs at most 10 packages and 5 MB, none with an install script', () => {
    const installed = figures.lean as InstallFigures;
    expect(installed.packages).toContain('spillway');
    expect(installed.packages.length).toBeLessThanOrEqual(MAX_PACKAGES);
    expect(installed.bytes).toBeLessThanOrEqual(MAX_BYTES);
    expect(installed.install_scripts).toEqual([]);
  });

  it('installs no optional part and no optional peer', () => {
    const optional = [
      ...Object.keys(MANIFEST.optionalDependencies),
      ...Object.keys(MANIFEST.peerDependencies),
    ];
    expect((figures.lean as InstallFigures).packages.filter((name) => optional.includes(name))).toEqual([]);
  });

  it('imports the root and the AI SDK adapter, and times the root import', async () => {
    const script = `
      const root = await import('spillway');
      const aiSdk = await import('spillway/ai-sdk');
      console.log(JSON.stringify({ driver: typeof root.ConversationDriver, middleware: typeof aiSdk.spillwayMiddleware }));
    `;
    const { stdout } = await node(['--input-type=module', '--eval', script], lean);
    expect(JSON.parse(stdout)).toEqual({ driver: 'function', middleware: 'function' });
    const times: number[] = [];
    for (let index = 0; index < IMPORT_RUNS; index += 1) times.push(await importTime('spillway', lean));
    for (const time of times) expect(time).toBeGreaterThan(0);
    figures.rootImportMs = times;
  }, 60_000);

  it('type-checks every subpath with skipLibCheck false, the SDK adapters aside (their SDK is what they wrap)', async () => {
    const wraps = new Set(['./ai-sdk', './openai', './anthropic', './package.json']);
    const subpaths = Object.keys(MANIFEST.exports as Record<string, unknown>).filter(
      (path) => !wraps.has(path),
    );
    const imports = subpaths.map(
      (path, index) =>
        `import type * as part${index} from '${path === '.' ? 'spillway' : `spillway/${path.slice(2)}`}';`,
    );
    const uses = subpaths.map((_, index) => `typeof part${index}`).join(', ');
    writeFileSync(join(lean, 'types.ts'), `${imports.join('\n')}\nexport type Parts = [${uses}];\n`);
    // Node's types and nothing else: the repository's own @types folder also holds those of the
    // optional packages, and the compiler would find a missing package's types there.
    const typeRoots = join(lean, 'type-roots');
    mkdirSync(typeRoots, { recursive: true });
    if (!existsSync(join(typeRoots, 'node')))
      symlinkSync(join(REPO, 'node_modules/@types/node'), join(typeRoots, 'node'));
    writeTsconfig(lean, 'tsconfig.types.json', {
      compilerOptions: {
        ...CONSUMER_COMPILER_OPTIONS,
        noEmit: true,
        skipLibCheck: false,
        typeRoots: [typeRoots],
      },
      files: ['types.ts'],
    });
    const checked = await consumerTsc(lean, 'tsconfig.types.json');
    expect(checked).toBe('');
    expect(subpaths.length).toBeGreaterThanOrEqual(10);
  }, 120_000);

  it('fails with missing_dependency naming the package when an optional part is used', async () => {
    expect(
      await failureOf(
        `const { SqliteSessionStore } = await import('spillway/store'); new SqliteSessionStore(':memory:');`,
        lean,
      ),
    ).toMatchObject({
      code: 'missing_dependency',
      package: 'better-sqlite3',
      message: expect.stringContaining('npm install better-sqlite3'),
    });
    expect(
      await failureOf(
        `const { createGptTokenizerCounter } = await import('spillway/tokenizers'); createGptTokenizerCounter('o200k_base');`,
        lean,
      ),
    ).toMatchObject({ code: 'missing_dependency', package: 'gpt-tokenizer' });
  });

  it('answers a command of the command line with missing_dependency naming the left-out package', async () => {
    const failed = await run(
      'npx',
      ['--no-install', 'spillway', 'serve', '--upstream', 'http://127.0.0.1:9'],
      {
        cwd: lean,
      },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code?: number; stderr?: string }) => ({ code: error.code, stderr: String(error.stderr) }),
    );
    expect(failed.code).toBe(1);
    const line = failed.stderr.trim().split('\n').at(-1) as string;
    expect(JSON.parse(line)).toMatchObject({ error: { code: 'missing_dependency', package: 'zod' } });
  });
});

describe('the default install (npm install: the command line’s parts, no optional peer)', () => {
  it('installs no package with an install script and no optional peer', () => {
    const installed = figures.full as InstallFigures;
    expect(installed.install_scripts).toEqual([]);
    for (const name of Object.keys(MANIFEST.optionalDependencies)) expect(installed.packages).toContain(name);
    for (const name of Object.keys(MANIFEST.peerDependencies)) expect(installed.packages).not.toContain(name);
  });

  it('runs `npx spillway demo` out of the box', async () => {
    const { stdout } = await run('npx', ['--no-install', 'spillway', 'demo', '--json', '--turns', '3'], {
      cwd: full,
      maxBuffer: 16 * 1024 * 1024,
    });
    const result = JSON.parse(stdout) as { runs: { spillway: { turns_completed: number; stuck: boolean } } };
    expect(result.runs.spillway).toMatchObject({ turns_completed: 3, stuck: false });
  }, 60_000);

  it('runs `npx spillway serve` out of the box, on the memory store when better-sqlite3 is not installed', async () => {
    const child = spawn(
      'npx',
      ['--no-install', 'spillway', 'serve', '--upstream', 'http://127.0.0.1:9', '--port', '0'],
      // A group of its own: npx runs the command as its child, and the stop must reach both.
      { cwd: full, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let stdout = '';
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const match = /listening on (\S+)/.exec(stdout);
          if (match) resolve(match[1] as string);
        });
        child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
      });
      const health = await fetch(`${url}/healthz`);
      expect(await health.json()).toMatchObject({ status: 'ok', store: 'memory' });
      const fallback = stderr
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((entry) => entry.event === 'store_fallback');
      expect(fallback).toMatchObject({ level: 'info', store: 'memory', package: 'better-sqlite3' });
    } finally {
      process.kill(-(child.pid as number), 'SIGTERM');
      await exited;
    }
  }, 60_000);

  it('runs `npx spillway chat -p` out of the box, keeping the session in the JSON store', async () => {
    const emulator = await startEmulator({
      profile: 'vllm',
      contextLength: 32_768,
      script: [{ text: 'Hello.' }],
    });
    const home = join(work, 'chat-home');
    mkdirSync(home);
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, SPILLWAY_STORE: join(home, 'sessions.db') };
    for (const key of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'SPILLWAY_API_KEY', 'XDG_CONFIG_HOME'])
      delete env[key];
    try {
      const args = [
        '--no-install',
        'spillway',
        'chat',
        '--base-url',
        `${emulator.url}/v1`,
        '--model',
        'Qwen/Qwen2.5-7B-Instruct',
      ];
      const { stdout } = await run('npx', [...args, '-p', 'Say hello.', '--json'], { cwd: full, env });
      const result = JSON.parse(stdout) as { session_id: string; reason: string; text: string };
      expect(result).toMatchObject({ reason: 'completed', text: 'Hello.' });
      expect(existsSync(join(home, 'sessions.db'))).toBe(false);
      const saved = JSON.parse(readFileSync(join(home, 'sessions.json'), 'utf8')) as {
        sessions: Array<{ record: { id: string } }>;
      };
      expect(saved.sessions.map((session) => session.record.id)).toEqual([result.session_id]);
    } finally {
      await emulator.close();
    }
  }, 60_000);

  it('fails with missing_dependency naming the package for the Redis store and MCP', async () => {
    expect(
      await failureOf(
        `const { createRedisProxyStore } = await import('spillway/proxy'); createRedisProxyStore({ url: 'redis://127.0.0.1:9' });`,
        full,
      ),
    ).toMatchObject({ code: 'missing_dependency', package: 'ioredis' });
    expect(
      await failureOf(
        `const { connectMcpServer } = await import('spillway/mcp'); await connectMcpServer({ server: { name: 'files', command: 'true' } });`,
        full,
      ),
    ).toMatchObject({ code: 'missing_dependency', package: '@modelcontextprotocol/sdk' });
  });
});

describe('the tarball', () => {
  it('ships no source map and no reference to one (the sources they would point at are not shipped)', () => {
    expect(packed.files.filter((path) => path.endsWith('.map'))).toEqual([]);
    const scripts = packed.files.filter((path) => path.endsWith('.js') || path.endsWith('.d.ts'));
    expect(scripts.length).toBeGreaterThan(0);
    const referencing = scripts.filter((path) =>
      readFileSync(join(lean, 'node_modules/spillway', path), 'utf8').includes('sourceMappingURL'),
    );
    expect(referencing).toEqual([]);
  });
});

afterAll(() => {
  if (process.env.SPILLWAY_UPDATE_RESULTS !== '1') return;
  const { lean: alone, full: withCli, rootImportMs } = figures;
  if (!alone || !withCli || !rootImportMs) return;
  const summary = (installed: InstallFigures) => ({
    ...installed,
    package_count: installed.packages.length,
    megabytes: Number((installed.bytes / 1_000_000).toFixed(2)),
  });
  const result = {
    ...runStamp('SPILLWAY_UPDATE_RESULTS=1 npx vitest run test/e2e/package-install.test.ts'),
    aims: { max_packages: MAX_PACKAGES, max_bytes: MAX_BYTES },
    tarball: {
      files: packed.files.length,
      source_maps: packed.files.filter((path) => path.endsWith('.map')).length,
    },
    library: summary(alone),
    default: summary(withCli),
    root_import_ms: {
      median: Number(median(rootImportMs).toFixed(1)),
      runs: rootImportMs.map((ms) => Number(ms.toFixed(1))),
    },
  };
  writeFileSync(RESULTS_PATH, `${JSON.stringify(result, null, 2)}\n`);
});
