/**
 * @module
 * The character-class scan behind the estimator. One pass over UTF-16 code units counts the features
 * that decide how many tokens a byte-level BPE tokenizer makes of a text: letter runs by length and how
 * they are broken (camel case, consonant streaks), digit groups (o200k and cl100k split digits in threes), whitespace,
 * punctuation, and code points by script range. A linear model over these counts, fitted per tokenizer
 * family by `scripts/fit-estimator.ts`, gives the estimate.
 */

/** Feature names, in the order of the counts vector and of every weight vector. */
export const FEATURES = [
  'segment',
  'ascii_letter',
  'letter_run_1',
  'letter_run_2',
  'letter_run_3',
  'letter_run_4_6',
  'letter_run_7_10',
  'letter_run_tail',
  'camel_break',
  'upper_after_upper',
  'consonant_streak',
  'digit',
  'digit_group',
  'space',
  'space_after_space',
  'newline',
  'newline_after_whitespace',
  'other_ascii_whitespace_control',
  'ascii_punct',
  'punct_run_start',
  'latin_extended',
  'two_byte_script',
  'three_byte_script',
  'general_punct_symbol',
  'cjk_punct_kana',
  'cjk_ideograph',
  'hangul',
  'astral',
  'other_bmp',
  'two_byte_other',
  'space_before_script',
  'hangul_run_tail',
  'latin_join',
] as const;

export const FEATURE_COUNT = FEATURES.length;

// Indices into the counts vector, in the order of FEATURES.
const SEGMENT = 0;
const LETTER = 1;
const RUN_1 = 2;
const RUN_2 = 3;
const RUN_3 = 4;
const RUN_4_6 = 5;
const RUN_7_10 = 6;
const RUN_TAIL = 7;
const CAMEL = 8;
const UPPER_RUN = 9;
const CONSONANT_STREAK = 10;
const DIGIT = 11;
const DIGIT_GROUP = 12;
const SPACE = 13;
const SPACE_RUN = 14;
const NEWLINE = 15;
const NEWLINE_RUN = 16;
const CONTROL = 17;
const PUNCT = 18;
const PUNCT_RUN = 19;
const LATIN = 20;
const TWO_BYTE = 21;
const THREE_BYTE = 22;
const GENERAL_PUNCT = 23;
const CJK_PUNCT = 24;
const IDEOGRAPH = 25;
const HANGUL = 26;
const ASTRAL = 27;
const OTHER_BMP = 28;
const TWO_BYTE_OTHER = 29;
const SPACE_BEFORE_SCRIPT = 30;
const HANGUL_TAIL = 31;
const LATIN_JOIN = 32;

// The previous character's kind, for the run-based features.
const OTHER = 0;
const LOWER = 1;
const UPPER = 2;
const DIGIT_KIND = 3;
const PUNCT_KIND = 4;
const SPACE_KIND = 5;
const HANGUL_KIND = 6;
const LATIN_KIND = 7;

/** ASCII vowels (y included): a letter run without them is rare in words and common in random ids. */
const VOWEL = new Uint8Array(128);
for (const vowel of 'aeiouyAEIOUY') VOWEL[vowel.charCodeAt(0)] = 1;

function closeRun(counts: Float64Array, length: number): void {
  if (length === 0) return;
  if (length === 1) counts[RUN_1]! += 1;
  else if (length === 2) counts[RUN_2]! += 1;
  else if (length === 3) counts[RUN_3]! += 1;
  else if (length <= 6) counts[RUN_4_6]! += 1;
  else if (length <= 10) counts[RUN_7_10]! += 1;
  else {
    counts[RUN_7_10]! += 1;
    counts[RUN_TAIL]! += length - 10;
  }
}

/** Where a scan of one text stands between two ranges of it (see {@link scanFeatures}). */
export interface FeatureScanState {
  prev: number;
  digitRun: number;
  run: number;
  consonants: number;
  hangulRun: number;
}

/** Starts the scan of one segment: counts it, and returns the state its first range starts from. */
export function startFeatureScan(counts: Float64Array): FeatureScanState {
  counts[SEGMENT]! += 1;
  return { prev: OTHER, digitRun: 0, run: 0, consonants: 0, hangulRun: 0 };
}

/** Ends the scan of one segment: closes the letter run it ended in. */
export function finishFeatureScan(counts: Float64Array, state: FeatureScanState): void {
  if (state.prev === LOWER || state.prev === UPPER) closeRun(counts, state.run);
}

/**
 * Adds the features of `text[start, end)` into `counts`, going on from `state` (and leaving it where
 * the range ends), so a long text can be scanned in steps with the same result as in one go. Returns
 * the index the scan stopped at: `end`, or one past it when a surrogate pair straddles `end`.
 */
export function scanFeatures(
  text: string,
  counts: Float64Array,
  state: FeatureScanState,
  start: number,
  end: number,
): number {
  let { prev, digitRun, run, consonants, hangulRun } = state;
  let index = start;
  for (; index < end; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) {
      const lower = code >= 0x61 && code <= 0x7a;
      if (lower || (code >= 0x41 && code <= 0x5a)) {
        counts[LETTER]! += 1;
        if (prev === LOWER && !lower) {
          counts[CAMEL]! += 1;
          closeRun(counts, run);
          run = 0;
          consonants = 0;
        } else if (prev === UPPER && !lower) {
          counts[UPPER_RUN]! += 1;
        } else if (prev !== LOWER && prev !== UPPER) {
          run = 0;
          consonants = 0;
          if (prev === LATIN_KIND) counts[LATIN_JOIN]! += 1;
        }
        run++;
        if (VOWEL[code] === 1) consonants = 0;
        else if (++consonants >= 3) counts[CONSONANT_STREAK]! += 1;
        prev = lower ? LOWER : UPPER;
        continue;
      }
      if (prev === LOWER || prev === UPPER) closeRun(counts, run);
      if (code >= 0x30 && code <= 0x39) {
        counts[DIGIT]! += 1;
        if (prev !== DIGIT_KIND) digitRun = 0;
        if (digitRun % 3 === 0) counts[DIGIT_GROUP]! += 1;
        digitRun++;
        prev = DIGIT_KIND;
      } else if (code === 0x20) {
        counts[SPACE]! += 1;
        if (prev === SPACE_KIND) counts[SPACE_RUN]! += 1;
        prev = SPACE_KIND;
      } else if (code === 0x0a) {
        counts[NEWLINE]! += 1;
        if (prev === SPACE_KIND) counts[NEWLINE_RUN]! += 1;
        prev = SPACE_KIND;
      } else if (code < 0x20 || code === 0x7f) {
        counts[CONTROL]! += 1;
        prev = SPACE_KIND;
      } else {
        counts[PUNCT]! += 1;
        if (prev !== PUNCT_KIND) counts[PUNCT_RUN]! += 1;
        prev = PUNCT_KIND;
      }
      continue;
    }
    // A letter with a diacritic inside an ASCII word splits it: the pieces on either side are
    // tokens of their own more often than whole words are.
    if (prev === LOWER || prev === UPPER) {
      closeRun(counts, run);
      if (code < 0x250) counts[LATIN_JOIN]! += 1;
    }
    // Beyond Cyrillic, the space before a letter is often a token of its own (the vocabularies hold
    // few " x" merges for these scripts): it is counted apart from the spaces of Latin text.
    if (code >= 0x530 && prev === SPACE_KIND && text.charCodeAt(index - 1) === 0x20) {
      counts[SPACE]! -= 1;
      counts[SPACE_BEFORE_SCRIPT]! += 1;
    }
    if (prev !== HANGUL_KIND) hangulRun = 0;
    prev = code < 0x250 ? LATIN_KIND : OTHER;
    if (code < 0x250) counts[LATIN]! += 1;
    else if (code < 0x530) counts[TWO_BYTE]! += 1;
    else if (code < 0x800) counts[TWO_BYTE_OTHER]! += 1;
    else if (code < 0x1100) counts[THREE_BYTE]! += 1;
    else if (code < 0x1200) counts[HANGUL]! += 1;
    else if (code < 0x2000) counts[THREE_BYTE]! += 1;
    else if (code < 0x2e80) counts[GENERAL_PUNCT]! += 1;
    else if (code < 0x3130) counts[CJK_PUNCT]! += 1;
    else if (code < 0x3190) counts[HANGUL]! += 1;
    else if (code < 0x3400) counts[CJK_PUNCT]! += 1;
    else if (code < 0x4dc0) counts[IDEOGRAPH]! += 1;
    else if (code < 0x4e00) counts[OTHER_BMP]! += 1;
    else if (code < 0xa000) counts[IDEOGRAPH]! += 1;
    else if (code < 0xac00) counts[OTHER_BMP]! += 1;
    else if (code < 0xd7b0) {
      // Korean words run two to four syllables between spaces; longer unbroken runs are rarer
      // words or tables, which tokenize closer to bytes.
      counts[HANGUL]! += 1;
      if (++hangulRun > 4) counts[HANGUL_TAIL]! += 1;
      prev = HANGUL_KIND;
    } else if (code < 0xd800) counts[OTHER_BMP]! += 1;
    else if (code < 0xdc00) {
      // A high surrogate: with its low surrogate it is one astral code point (4 UTF-8 bytes).
      const low = text.charCodeAt(index + 1);
      if (low >= 0xdc00 && low <= 0xdfff) index++;
      counts[ASTRAL]! += 1;
    } else if (code < 0xe000) counts[ASTRAL]! += 1;
    else if (code >= 0xf900 && code < 0xfb00) counts[IDEOGRAPH]! += 1;
    else if (code >= 0xff00 && code < 0xfff0) counts[CJK_PUNCT]! += 1;
    else counts[OTHER_BMP]! += 1;
  }
  state.prev = prev;
  state.digitRun = digitRun;
  state.run = run;
  state.consonants = consonants;
  state.hangulRun = hangulRun;
  return index;
}

/**
 * Adds the feature counts of `text` into `counts` (length {@link FEATURE_COUNT}). Counts one
 * `segment` per call: each separately tokenized string costs at least its own boundary effects.
 * Letter runs are maximal runs of ASCII letters, split where a lowercase letter meets an uppercase
 * one (as o200k's pre-tokenizer splits camelCase), bucketed by length.
 */
export function countFeatures(text: string, counts: Float64Array): void {
  const state = startFeatureScan(counts);
  scanFeatures(text, counts, state, 0, text.length);
  finishFeatureScan(counts, state);
}

/**
 * Upper bounds for the weights of code-point classes, in tokens per code point: its UTF-8 byte
 * length. A byte-level BPE never yields more tokens than bytes, so a class the fit saw little of can
 * be counted at its byte length and stay safe.
 */
export const BYTE_LENGTH_CAP: Readonly<Partial<Record<(typeof FEATURES)[number], number>>> = {
  latin_extended: 2,
  two_byte_script: 2,
  three_byte_script: 3,
  general_punct_symbol: 3,
  cjk_punct_kana: 3,
  cjk_ideograph: 3,
  hangul: 3,
  astral: 4,
  other_bmp: 3,
  two_byte_other: 2,
  hangul_run_tail: 3,
  // The space before a letter of another script: one byte.
  space_before_script: 1,
};
