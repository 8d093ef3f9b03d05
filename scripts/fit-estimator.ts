/**
 * Fits the estimator's per-family weights against real tokenizers and writes
 * src/core/tokens/weights.ts. Run: `npx tsx scripts/fit-estimator.ts`.
 *
 * For each family, it finds non-negative weights w over the character-class features f that make the
 * estimate f·w at least the real count r on every training sample while over-counting as little as
 * possible: minimize Σ (f·w)/r subject to f·w ≥ r, solved by projected gradient descent on a penalty
 * that grows each round, then scaled so that every training sample holds exactly, then given a margin.
 * Training uses the mixed corpus under seeds the tests never use, plus short strings (ids, single
 * words) where the per-segment constant dominates.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { BYTE_LENGTH_CAP, countFeatures, FEATURE_COUNT, FEATURES } from '../src/core/tokens/char-classes.js';
import { REFERENCE_TOKENIZERS } from '../test/corpus/accuracy.js';
import { buildMixedCorpus } from '../test/corpus/mixed-corpus.js';
import { createRandom } from '../test/corpus/random.js';

const TRAIN_SEEDS = [101, 102, 103, 104, 105, 106];
/** Classes counted at their UTF-8 byte length instead of fitted: the corpus holds too little of them. */
const RARE_CLASSES = new Set<string>(['three_byte_script', 'other_bmp']);
/** Multiplied into the fitted weights: room for text unlike the training samples. */
const MARGIN = 1.04;

const FAMILIES: Record<string, (text: string) => number> = REFERENCE_TOKENIZERS;

interface Row {
  text: string;
  features: Float64Array;
  real: Record<string, number>;
}

function trainingTexts(): string[] {
  const texts: string[] = [];
  for (const seed of TRAIN_SEEDS)
    for (const sample of buildMixedCorpus({ seed, samplesPerClass: 120 })) texts.push(sample.text);
  const random = createRandom(7);
  const short: string[] = [];
  for (const text of texts) {
    if (!random.chance(0.25)) continue;
    const length = random.int(1, 24);
    const start = random.int(0, Math.max(0, text.length - length));
    const piece = text.slice(start, start + length).replace(/^[\udc00-\udfff]|[\ud800-\udbff]$/g, '');
    if (piece !== '') short.push(piece);
  }
  // Runs of one character: separator lines, indentation, padding. Long runs are where a per-class
  // average fails worst, so they are trained on explicitly.
  const runs: string[] = [];
  for (const unit of [' ', '\t', '\n', '\r\n', '-', '=', '*', '#', '.', '/', '0', '中', '😀', '→']) {
    for (const length of [1, 2, 3, 5, 8, 13, 40, 200, 800]) runs.push(unit.repeat(length));
  }
  return [...texts, ...short, ...runs];
}

function fitFamily(rows: Row[], family: string): number[] {
  const caps = FEATURES.map(
    (name) => BYTE_LENGTH_CAP[name as keyof typeof BYTE_LENGTH_CAP] ?? Number.POSITIVE_INFINITY,
  );
  // A class the training never saw, or saw too little of to trust (scripts no corpus source covers),
  // is counted at its byte length: unseen scripts stay safe.
  const seen = FEATURES.map(
    (name, k) => !RARE_CLASSES.has(name) && rows.some((row) => (row.features[k] as number) > 0),
  );
  const weights = new Float64Array(FEATURE_COUNT).fill(0.5);
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
        const scale = 1 / real - (shortfall > 0 ? (2 * penalty * shortfall) / real : 0);
        for (let k = 0; k < FEATURE_COUNT; k++)
          gradient[k] = (gradient[k] as number) + scale * (row.features[k] as number);
      }
      step++;
      for (let k = 0; k < FEATURE_COUNT; k++) {
        const g = (gradient[k] as number) / rows.length;
        m[k] = 0.9 * (m[k] as number) + 0.1 * g;
        v[k] = 0.999 * (v[k] as number) + 0.001 * g * g;
        const mHat = (m[k] as number) / (1 - 0.9 ** step);
        const vHat = (v[k] as number) / (1 - 0.999 ** step);
        weights[k] = Math.min(
          caps[k] as number,
          Math.max(0, (weights[k] as number) - (0.01 * mHat) / (Math.sqrt(vHat) + 1e-9)),
        );
      }
    }
  }
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
    seen[k] ? Math.min(caps[k] as number, weight * worst * MARGIN) : (caps[k] as number),
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

const texts = trainingTexts();
console.log(`training on ${texts.length} samples`);
const truth = groundTruth(texts);
const rows: Row[] = texts.map((text, index) => {
  const features = new Float64Array(FEATURE_COUNT);
  countFeatures(text, features);
  const real: Record<string, number> = {};
  for (const family of Object.keys(FAMILIES)) real[family] = Math.max(1, truth[family]?.[index] as number);
  return { text, features, real };
});

/** Real counts per family, cached per family under node_modules/.cache: tokenizing takes minutes. */
function groundTruth(texts: string[]): Record<string, number[]> {
  const hash = createHash('sha256');
  for (const text of texts) hash.update(text).update('\u0000');
  const key = hash.digest('hex').slice(0, 16);
  const directory = new URL('../node_modules/.cache/spillway-fit/', import.meta.url);
  mkdirSync(directory, { recursive: true });
  const counts: Record<string, number[]> = {};
  for (const [family, count] of Object.entries(FAMILIES)) {
    const file = new URL(`truth-${key}-${family}.json`, directory);
    if (existsSync(file)) {
      counts[family] = JSON.parse(readFileSync(file, 'utf8')) as number[];
      continue;
    }
    const started = Date.now();
    counts[family] = texts.map((text) => count(text));
    writeFileSync(file, JSON.stringify(counts[family]));
    console.log(`counted ${family} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
  return counts;
}

const fitted: Record<string, number[]> = {};
for (const family of Object.keys(FAMILIES)) {
  fitted[family] = fitFamily(rows, family);
  console.log(family, summarize(rows, fitted[family] as number[], family));
}

const round = (weights: number[]) => weights.map((weight) => Math.ceil(weight * 10_000) / 10_000);
const lines = [
  '// Generated by scripts/fit-estimator.ts from real tokenizer counts (REFERENCE_TOKENIZERS in',
  '// test/corpus/accuracy.ts: gpt-tokenizer 4.0.0, @anthropic-ai/tokenizer, llama-tokenizer-js,',
  '// mistral-tokenizer-js, llama3-tokenizer-js) over the',
  '// mixed corpus in test/corpus. Do not edit by hand: change the script and run it again.',
  '',
  "import type { FEATURES } from './char-classes.js';",
  '',
  '/** Tokens per feature, in the order of {@link FEATURES}, per tokenizer family. */',
  'export const FAMILY_WEIGHTS = {',
  ...Object.entries(fitted).map(([family, weights]) => `  ${family}: [${round(weights).join(', ')}],`),
  '} as const satisfies Record<string, readonly number[] & { length: (typeof FEATURES)["length"] }>;',
  '',
];
writeFileSync(new URL('../src/core/tokens/weights.ts', import.meta.url), lines.join('\n'));
console.log('wrote src/core/tokens/weights.ts');
