/**
 * @module
 * The words that say what a figure is. A figure's role comes from the closest cue before it (within
 * a few filler words, never across a sentence end) and from the unit right after it, which wins:
 * `4096 output tokens`, `4012 in the messages`, `200000 maximum`. Cues are word families, not
 * provider sentences: prompt / input / request for the prompt, window / limit / maximum / context
 * size for the window, output / max_tokens / completion for the requested output.
 */

/** What a cue says about the figure next to it. */
export type CueRole =
  /** An explicit window: `context length`, `n_ctx`, `max_model_len`, `maximum input length`. */
  | 'window'
  /** A bound whose subject decides what it bounds: `limit`, `at most`, `must be <=`, `up to`. */
  | 'limit'
  | 'input'
  /** One part of the prompt in a breakdown (`4012 in the messages, 2933 in the functions`). */
  | 'inputPart'
  | 'output'
  | 'total'
  /** A measured amount whose subject decides its role: `given`, `got`, `received`, `actual`. */
  | 'measured'
  /** `requested N` with nothing between: the prompt plus the requested output. */
  | 'requested'
  /** Not a token figure: `0 draft tokens`, `14233 characters`, `30 attempts`. */
  | 'ignore'
  /** An exclusive upper bound: the largest accepted value is one less. */
  | 'exclusive'
  /** A lower bound of a range (`from 1 (inclusive)`). */
  | 'lowerBound';

interface Cue {
  role: CueRole;
  source: string;
}

/** Cues before a figure, most specific first where two could end at the same place. */
const LEFT_CUES: readonly Cue[] = [
  {
    role: 'window',
    source:
      'max(?:imum)?(?: number of tokens(?: allowed)?|(?: allowed| supported| available)*(?: input| context| prompt| model| sequence| total)? (?:length|len|size|window))',
  },
  {
    role: 'window',
    source:
      'maxlength|max_model_len|max_total_tokens|max_input_len|max_seq_len|n_ctx|context[ _]?(?:length|window|size|limit|len)|token limit|kv size|max(?:imum)? token count',
  },
  {
    role: 'output',
    source: 'max(?:_completion|_new|_output)?_tokens|maxoutputtokens|max(?:imum)? tokens',
  },
  { role: 'output', source: 'completion_tokens|generation length|generating|completion|output' },
  {
    role: 'limit',
    source:
      "limit|max|maximum|at most|up to|cannot exceed|can't exceed|must be (?:<=|less than(?: or equal to)?|at most)|<=|(?:less|lower) than(?: or equal to)?|capacity",
  },
  {
    role: 'input',
    source: 'n_prompt_tokens|prompt_tokens|input_tokens|n_keep|keep the first|requested tokens',
  },
  { role: 'input', source: 'prompt|inputs?|messages?|request|conversation' },
  {
    role: 'total',
    source: 'total (?:of|tokens|token count)|total_tokens|total:|current (?:length|size|token count)',
  },
  { role: 'requested', source: 'requested(?: about| a total of)?' },
  {
    role: 'measured',
    source: 'given|got|received|actual|provided|passed|contains|resulted in|number of tokens|token count',
  },
];

/** Cues right after a figure: its unit. */
const RIGHT_CUES: readonly Cue[] = [
  { role: 'exclusive', source: String.raw`\(exclusive\)` },
  { role: 'lowerBound', source: String.raw`\(inclusive\)` },
  {
    role: 'ignore',
    source: String.raw`(?:draft tokens|characters?|chars|bytes|ms|seconds?|attempts?|retries|%|items?)\b`,
  },
  {
    role: 'inputPart',
    source: String.raw`(?:tokens? )?(?:in|from) (?:the |your )?(?:input )?(?:messages|prompt|functions|tools)\b`,
  },
  { role: 'inputPart', source: String.raw`of [a-z]+ input\b` },
  { role: 'input', source: String.raw`(?:input|inputs|prompt) ?\x60? tokens\b` },
  { role: 'output', source: String.raw`(?:tokens? )?(?:in|for) (?:the )?(?:completion|output)\b` },
  { role: 'output', source: String.raw`(?:output|completion) tokens?\b|'?max(?:_new)?_tokens\b` },
  { role: 'window', source: String.raw`(?:tokens )?maximum\b` },
  // The subject of "exceeds" is the measured amount (`306234 tokens exceeds the limit of 272000`).
  { role: 'measured', source: String.raw`(?:tokens?\b[\s)]*)?exceeds?\b` },
];

/** One capturing group per cue, in order (cue sources use only non-capturing groups). */
function compile(cues: readonly Cue[], anchored: boolean): RegExp {
  const alternatives = cues.map((cue) => `(${cue.source})`).join('|');
  return anchored
    ? new RegExp(`^[\\s)\\]\`'"~]*(?:${alternatives})`, 'i')
    : new RegExp(`(?<![a-z_])(?:${alternatives})(?![a-z_])`, 'gi');
}

const LEFT = compile(LEFT_CUES, false);
const RIGHT = compile(RIGHT_CUES, true);

function roleOf(cues: readonly Cue[], match: RegExpExecArray): CueRole {
  for (let index = 0; index < cues.length; index += 1)
    if (match[index + 1] !== undefined) return (cues[index] as Cue).role;
  return 'ignore';
}

/** Filler between a cue and its figure: a few short words and marks, no digit, no sentence end. */
const FILLER = /^(?:[\s:=([~`'"#,-]|(?<![a-z])[a-z_]{1,14}(?![a-z_]))*$/i;
const MAX_FILLER_WORDS = 5;

function isFiller(gap: string): boolean {
  if (!FILLER.test(gap) || /[.!?;](?:\s|$)/.test(gap)) return false;
  return (gap.match(/[a-z_]+/gi)?.length ?? 0) <= MAX_FILLER_WORDS;
}

/**
 * The role the closest cue in `left` gives a figure that follows it, or `undefined`. `requested`
 * counts only right before the figure (`you requested 4268 tokens`); further away (`Requested
 * tokens (2285)`) it names the prompt.
 */
export function leftCue(left: string): CueRole | undefined {
  let best: { role: CueRole; end: number; length: number } | undefined;
  LEFT.lastIndex = 0;
  for (let match = LEFT.exec(left); match; match = LEFT.exec(left)) {
    const end = match.index + match[0].length;
    if (!best || end > best.end || (end === best.end && match[0].length > best.length))
      best = { role: roleOf(LEFT_CUES, match), end, length: match[0].length };
  }
  if (!best) return undefined;
  const gap = left.slice(best.end);
  if (!isFiller(gap)) return undefined;
  if (best.role === 'requested') return /^[\s:~]*$/.test(gap) ? 'requested' : 'input';
  return best.role;
}

/** The role the unit right after a figure gives it, or `undefined`. */
export function rightCue(right: string): CueRole | undefined {
  const match = RIGHT.exec(right);
  return match ? roleOf(RIGHT_CUES, match) : undefined;
}

/** Words that name the requested output, for deciding what a bound or a measured figure is about. */
export const OUTPUT_SUBJECT =
  /(?<![a-z_])(?:max(?:_completion|_new|_output)?_tokens|maxoutputtokens|max(?:imum)? tokens|completion tokens|output tokens)(?![a-z_])/i;
/** Words that name the prompt or the window, which make a bound a window bound. */
export const PROMPT_SUBJECT = /(?<![a-z_])(?:prompt|inputs?|messages|context)(?![a-z_])/i;
