/**
 * @module
 * The character-class scan behind the estimator. One pass over UTF-16 code units counts the features
 * that decide how many tokens a byte-level BPE tokenizer makes of a text: letters and where words and
 * camel-case humps start, digit groups (o200k and cl100k split digits in threes), whitespace,
 * punctuation, and code points by script range. A linear model over these counts, fitted per tokenizer
 * family by `scripts/fit-estimator.ts`, gives the estimate.
 */

/** Feature names, in the order of the counts vector and of every weight vector. */
export const FEATURES = [
  'segment',
  'ascii_letter',
  'word_start',
  'camel_break',
  'digit',
  'digit_group',
  'space',
  'newline',
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
] as const;

export const FEATURE_COUNT = FEATURES.length;

enum F {
  Segment = 0,
  Letter = 1,
  WordStart = 2,
  CamelBreak = 3,
  Digit = 4,
  DigitGroup = 5,
  Space = 6,
  Newline = 7,
  Control = 8,
  Punct = 9,
  PunctRun = 10,
  Latin = 11,
  TwoByte = 12,
  ThreeByte = 13,
  GeneralPunct = 14,
  CjkPunct = 15,
  Ideograph = 16,
  Hangul = 17,
  Astral = 18,
  OtherBmp = 19,
}

/** The previous character's kind, for the run-based features. */
enum Prev {
  Other = 0,
  Lower = 1,
  Upper = 2,
  Digit = 3,
  Punct = 4,
}

/**
 * Adds the feature counts of `text` into `counts` (length {@link FEATURE_COUNT}). Counts one
 * `segment` per call: each separately tokenized string costs at least its own boundary effects.
 */
export function countFeatures(text: string, counts: Float64Array): void {
  counts[F.Segment] = (counts[F.Segment] ?? 0) + 1;
  let letter = 0;
  let wordStart = 0;
  let camel = 0;
  let digit = 0;
  let digitGroup = 0;
  let space = 0;
  let newline = 0;
  let control = 0;
  let punct = 0;
  let punctRun = 0;
  let latin = 0;
  let twoByte = 0;
  let threeByte = 0;
  let general = 0;
  let cjkPunct = 0;
  let ideograph = 0;
  let hangul = 0;
  let astral = 0;
  let otherBmp = 0;
  let prev = Prev.Other;
  let digitRun = 0;
  const length = text.length;
  for (let index = 0; index < length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) {
      if (code >= 0x61 && code <= 0x7a) {
        letter++;
        if (prev !== Prev.Lower && prev !== Prev.Upper) wordStart++;
        prev = Prev.Lower;
      } else if (code >= 0x41 && code <= 0x5a) {
        letter++;
        if (prev === Prev.Lower) camel++;
        else if (prev !== Prev.Upper) wordStart++;
        prev = Prev.Upper;
      } else if (code >= 0x30 && code <= 0x39) {
        digit++;
        if (prev !== Prev.Digit) digitRun = 0;
        if (digitRun % 3 === 0) digitGroup++;
        digitRun++;
        prev = Prev.Digit;
      } else if (code === 0x20) {
        space++;
        prev = Prev.Other;
      } else if (code === 0x0a) {
        newline++;
        prev = Prev.Other;
      } else if (code < 0x20 || code === 0x7f) {
        control++;
        prev = Prev.Other;
      } else {
        punct++;
        if (prev !== Prev.Punct) punctRun++;
        prev = Prev.Punct;
      }
      continue;
    }
    prev = Prev.Other;
    if (code < 0x250) latin++;
    else if (code < 0x800) twoByte++;
    else if (code < 0x1100) threeByte++;
    else if (code < 0x1200) hangul++;
    else if (code < 0x2000) threeByte++;
    else if (code < 0x2e80) general++;
    else if (code < 0x3130) cjkPunct++;
    else if (code < 0x3190) hangul++;
    else if (code < 0x3400) cjkPunct++;
    else if (code < 0x4dc0) ideograph++;
    else if (code < 0x4e00) otherBmp++;
    else if (code < 0xa000) ideograph++;
    else if (code < 0xac00) otherBmp++;
    else if (code < 0xd7b0) hangul++;
    else if (code < 0xd800) otherBmp++;
    else if (code < 0xdc00) {
      // A high surrogate: with its low surrogate it is one astral code point (4 UTF-8 bytes).
      const low = text.charCodeAt(index + 1);
      if (low >= 0xdc00 && low <= 0xdfff) index++;
      astral++;
    } else if (code < 0xe000) astral++;
    else if (code >= 0xf900 && code < 0xfb00) ideograph++;
    else if (code >= 0xff00 && code < 0xfff0) cjkPunct++;
    else otherBmp++;
  }
  counts[F.Letter] = (counts[F.Letter] ?? 0) + letter;
  counts[F.WordStart] = (counts[F.WordStart] ?? 0) + wordStart;
  counts[F.CamelBreak] = (counts[F.CamelBreak] ?? 0) + camel;
  counts[F.Digit] = (counts[F.Digit] ?? 0) + digit;
  counts[F.DigitGroup] = (counts[F.DigitGroup] ?? 0) + digitGroup;
  counts[F.Space] = (counts[F.Space] ?? 0) + space;
  counts[F.Newline] = (counts[F.Newline] ?? 0) + newline;
  counts[F.Control] = (counts[F.Control] ?? 0) + control;
  counts[F.Punct] = (counts[F.Punct] ?? 0) + punct;
  counts[F.PunctRun] = (counts[F.PunctRun] ?? 0) + punctRun;
  counts[F.Latin] = (counts[F.Latin] ?? 0) + latin;
  counts[F.TwoByte] = (counts[F.TwoByte] ?? 0) + twoByte;
  counts[F.ThreeByte] = (counts[F.ThreeByte] ?? 0) + threeByte;
  counts[F.GeneralPunct] = (counts[F.GeneralPunct] ?? 0) + general;
  counts[F.CjkPunct] = (counts[F.CjkPunct] ?? 0) + cjkPunct;
  counts[F.Ideograph] = (counts[F.Ideograph] ?? 0) + ideograph;
  counts[F.Hangul] = (counts[F.Hangul] ?? 0) + hangul;
  counts[F.Astral] = (counts[F.Astral] ?? 0) + astral;
  counts[F.OtherBmp] = (counts[F.OtherBmp] ?? 0) + otherBmp;
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
};
