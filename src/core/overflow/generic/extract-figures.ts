/**
 * @module
 * Structural figure extraction: which number of a message is the prompt, the window, the requested
 * output, the total or the output limit, from the words around each number and the operators between
 * them (`A + B > C`, `A >= C`, `A of C`, `(A / C)`, `[1, C]`, `= T`), whatever the wording.
 */
import type { OverflowFigures } from '../types.js';
import { type FigureCandidate, figureCandidates, unglueFigures } from './figure-candidates.js';
import { type CueRole, leftCue, OUTPUT_SUBJECT, PROMPT_SUBJECT, rightCue } from './figure-cues.js';

/** A figure role after the sentence decided what bounds and measured amounts refer to. */
type FigureRole = 'window' | 'input' | 'inputPart' | 'output' | 'total' | 'outputLimit' | 'requested';

/** What {@link extractFigures} read. */
export interface ExtractedFigures {
  figures: OverflowFigures;
  /** The requested output was stated negative (`max_tokens ... got -7584`): the prompt took it all. */
  negativeOutput: boolean;
  /** The window figure counts characters (`maxLength`, `string with maximum length`). */
  characters: boolean;
}

interface Slot {
  candidate: FigureCandidate;
  role?: FigureRole;
  /** Set by an operator: a role no cue may replace. */
  fixed?: boolean;
  exclusive?: boolean;
}

const LEFT_REACH = 80;
const RIGHT_REACH = 48;
/** Where a clause starts: after a sentence end or a colon that introduces a message. */
const CLAUSE_START = /[.!?;:](?=\s)/g;

/** The clause a figure sits in, up to the figure: what a bound or a measured amount is about. */
function clauseBefore(text: string, index: number): string {
  const window = text.slice(Math.max(0, index - 200), index);
  let start = 0;
  CLAUSE_START.lastIndex = 0;
  for (let match = CLAUSE_START.exec(window); match; match = CLAUSE_START.exec(window))
    start = match.index + 1;
  return window.slice(start);
}

const STATUS_BEFORE = /(?:error|failed|status|code|http|api error)["'\s:=_(-]*$/i;
const STATUS_AFTER =
  /^\s*(?:[{[-]|bad request|client error|unprocessable|internal server|service unavailable|invalid_argument)/i;

/** An HTTP status in an error line (`Request Failed: 400 {`, `400 Bad Request`), not a figure. */
function isStatus(text: string, candidate: FigureCandidate): boolean {
  if (candidate.value < 100 || candidate.value > 599) return false;
  return (
    /^\s*\[?\s*$/.test(text.slice(0, candidate.start)) ||
    STATUS_BEFORE.test(text.slice(Math.max(0, candidate.start - 24), candidate.start)) ||
    STATUS_AFTER.test(text.slice(candidate.end, candidate.end + 24))
  );
}

function outputSubject(subject: string): boolean {
  return OUTPUT_SUBJECT.test(subject) && !PROMPT_SUBJECT.test(subject);
}

function resolve(cue: CueRole | undefined, subject: string): FigureRole | undefined {
  switch (cue) {
    case 'window':
    case 'input':
    case 'inputPart':
    case 'output':
    case 'total':
    case 'requested':
      return cue;
    case 'limit':
    case 'exclusive':
      return outputSubject(subject) ? 'outputLimit' : 'window';
    case 'measured':
      if (/\btotal\b/i.test(subject)) return 'total';
      return outputSubject(subject) ? 'output' : 'input';
    default:
      return undefined;
  }
}

/** The role the words around one figure give it. */
function roleFromWords(text: string, candidate: FigureCandidate, previousEnd: number, nextStart: number) {
  const left = text.slice(
    Math.max(previousEnd, candidate.start - LEFT_REACH),
    candidate.start - (candidate.negative ? 1 : 0),
  );
  const right = text.slice(candidate.end, Math.min(nextStart, candidate.end + RIGHT_REACH));
  const after = rightCue(right);
  const before = leftCue(left);
  const subject = clauseBefore(text, candidate.start);
  if (isStatus(text, candidate)) return { role: undefined, exclusive: false };
  if (after === 'ignore' || after === 'lowerBound') return { role: undefined, exclusive: false };
  if (after === 'input' || after === 'inputPart' || after === 'output') {
    const bound = before === 'limit' || before === 'window';
    const role: FigureRole = bound ? (after === 'output' ? 'outputLimit' : 'window') : after;
    return { role, exclusive: false };
  }
  if (after === 'window' || after === 'exclusive')
    return { role: resolve('limit', subject), exclusive: after === 'exclusive' };
  if (after === 'measured') return { role: resolve('measured', subject), exclusive: false };
  return { role: resolve(before, subject), exclusive: false };
}

const PLUS = /^[^\d.!?;]{0,24}\+[^\d.!?;]{0,24}$/;
const EQUALS = /^[^\d<>!]{0,12}(?<![<>])=[^\d]{0,24}$/;
const GREATER = /^[\s)`'"\]]*(?:tokens?[\s)]*)?(?:>=?|≥)[^\d.!?;]{0,24}$/;
const OF = /^\s*of\s*$/i;
const SLASH = /^\s*\/\s*$/;
const RANGE = /^\s*,\s*$/;

/** Operators between neighbouring figures fix roles that words alone get wrong. */
function applyOperators(text: string, slots: Slot[]): void {
  let summing = false;
  for (let index = 0; index + 1 < slots.length; index += 1) {
    const first = slots[index] as Slot;
    const second = slots[index + 1] as Slot;
    const gap = text.slice(first.candidate.end, second.candidate.start);
    if (PLUS.test(gap)) {
      if (first.role !== 'input' && first.role !== 'output') first.role = summing ? 'output' : 'input';
      if (second.role !== 'input' && second.role !== 'output') second.role = 'output';
      first.fixed = second.fixed = summing = true;
    } else if (summing && EQUALS.test(gap)) {
      second.role = 'total';
      second.fixed = true;
    } else if (GREATER.test(gap) || OF.test(gap) || SLASH.test(gap)) {
      if (first.role === 'window' || first.role === 'outputLimit' || first.role === undefined)
        first.role = 'input';
      if (!second.fixed) second.role = first.role === 'output' && !summing ? 'outputLimit' : 'window';
      second.fixed = true;
      summing = false;
    } else if (
      RANGE.test(gap) &&
      /\[\s*$/.test(text.slice(0, first.candidate.start)) &&
      /^\s*\]/.test(text.slice(second.candidate.end))
    ) {
      first.role = undefined;
      second.role = resolve('limit', clauseBefore(text, first.candidate.start));
      second.fixed = true;
    } else summing = false;
  }
}

const FIELD: Record<Exclude<FigureRole, 'inputPart' | 'requested'>, keyof OverflowFigures> = {
  window: 'window',
  input: 'input',
  output: 'output',
  total: 'total',
  outputLimit: 'outputLimit',
};

function collect(slots: readonly Slot[]): { figures: OverflowFigures; negativeOutput: boolean } {
  const figures: OverflowFigures = {};
  const parts = new Set<number>();
  let negativeOutput = false;
  for (const { candidate, role, exclusive } of slots) {
    if (role === undefined) continue;
    if (candidate.negative) {
      negativeOutput ||= role === 'output';
      continue;
    }
    const value = exclusive ? candidate.value - 1 : candidate.value;
    if (role === 'inputPart') parts.add(value);
    else if (role === 'requested') figures.total ??= value;
    else if (value > 0 || (role !== 'window' && role !== 'input')) figures[FIELD[role]] ??= value;
  }
  if (figures.input === undefined && parts.size > 0)
    figures.input = [...parts].reduce((sum, part) => sum + part, 0);
  return { figures, negativeOutput };
}

/** A figure no word explained that equals prompt + output is the total (`requires a sequence length of 4310`). */
function completeTotal(slots: readonly Slot[], figures: OverflowFigures): void {
  const { input, output } = figures;
  if (figures.total !== undefined || input === undefined || output === undefined) return;
  if (slots.some((slot) => slot.role === undefined && slot.candidate.value === input + output))
    figures.total = input + output;
}

const CHARACTER_UNITS = /maxlength|string with (?:a )?(?:maximum )?length|\bcharacters\b/i;

/**
 * Reads the figures a message states, whatever its wording: each number's role from the cue words
 * around it, corrected by the operators between numbers. Only numbers that stand alone count (not
 * the digits of ids, versions, dates or paths), at most 64 of them.
 *
 * @example
 * extractFigures('Prompt length (5056) exceeds maximum sequence length (2048)').figures;
 * // { input: 5056, window: 2048 }
 */
export function extractFigures(scanText: string): ExtractedFigures {
  const text = unglueFigures(scanText);
  const candidates = figureCandidates(text);
  const slots: Slot[] = candidates.map((candidate, index) => {
    const previousEnd = candidates[index - 1]?.end ?? 0;
    const nextStart = candidates[index + 1]?.start ?? text.length;
    return { candidate, ...roleFromWords(text, candidate, previousEnd, nextStart) };
  });
  applyOperators(text, slots);
  const { figures, negativeOutput } = collect(slots);
  completeTotal(slots, figures);
  const windowSlot = slots.find((slot) => slot.role === 'window');
  const around = windowSlot
    ? text.slice(Math.max(0, windowSlot.candidate.start - 60), windowSlot.candidate.end + 12)
    : '';
  const characters =
    windowSlot !== undefined &&
    CHARACTER_UNITS.test(around) &&
    !/^\s*tokens/i.test(text.slice(windowSlot.candidate.end));
  return { figures, negativeOutput, characters };
}
