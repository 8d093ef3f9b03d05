/**
 * @module
 * `classifyOverflow`: a provider rejection in, `context | budget | output_cap | none` and its figures out.
 */
import { OVERFLOW_CATALOG } from './catalog/index.js';
import { collectEvidence, httpStatus } from './collect-evidence.js';
import {
  classifyGeneric,
  extractFigures,
  GENERIC_FINISH_REASON_PATTERN,
  nearMissGate,
  OUTPUT_TRUNCATED_GATE,
} from './generic/index.js';
import { overflowInfo } from './overflow-info.js';
import { parseFigure } from './parse-figure.js';
import { holdsOneOf, requiredLiteralsOf, wordsOf } from './required-text.js';
import {
  capScanText,
  errorEventsOf,
  joinWrappedWords,
  normalizeScanText,
  SSE_DATA_LINE,
} from './scan-text.js';
import { isSuccessfulAnswer, SUCCESS_STATUS_PATTERN } from './success-answer.js';
import {
  FIGURE_GROUPS,
  type OverflowFigures,
  type OverflowInfo,
  type OverflowKind,
  type OverflowPattern,
  type OverflowRow,
} from './types.js';

/** `pattern` when no row matched (or only weak evidence the status ruled out). */
export const NO_MATCH_PATTERN = 'no-match';
/** `pattern` of a bare 413 sent when the last request was already near the window. */
export const HTTP_413_NEAR_WINDOW_PATTERN = 'http-413-near-window';
/** A 413 without token wording is an overflow only when the last estimate was this close to the window. */
export const NEAR_WINDOW_RATIO = 0.8;
/** Statuses at which weak (generic, figure-less) evidence classifies, and unmatched rejections are flagged. */
export const WEAK_EVIDENCE_STATUSES: readonly number[] = [400, 413, 422];

/** Inputs of {@link classifyOverflow}. */
export interface ClassifyOverflowOptions {
  /** The HTTP status, when known. A 200 defers to a status stated inside the body (stream errors). */
  status?: number;
  /**
   * What the server sent: text (JSON, SSE, Python or bytes reprs, SDK-prefixed strings), bytes, a
   * parsed JSON value, or an `Error`.
   */
  body?: unknown;
  /** The error a client threw; walked along `cause` and SDK fields (`status`, `error`, `responseBody`). */
  error?: unknown;
  /** Estimated prompt tokens of the rejected request (for a bare 413). */
  lastEstimate?: number;
  /** The window the rejected request was fitted to (for a bare 413). */
  window?: number;
  /** Compiled user rows (see `compileOverflowPatterns`), tried before the catalog, in order. */
  patterns?: readonly OverflowPattern[];
  /** The built-in rows tried after `patterns`. Default {@link OVERFLOW_CATALOG}; replace it to evaluate subsets. */
  catalog?: readonly OverflowRow[];
}

interface RowMatch {
  row: OverflowPattern | OverflowRow;
  figures: OverflowFigures;
  /** Generic wording without figures: status-gated, and any later row with figures wins. */
  weak: boolean;
}

function figuresOf(groups: Record<string, string | undefined> | undefined): OverflowFigures {
  const figures: OverflowFigures = {};
  if (!groups) return figures;
  for (const group of FIGURE_GROUPS) {
    const value = parseFigure(groups[group]);
    if (value !== undefined) figures[group === 'output_limit' ? 'outputLimit' : group] = value;
  }
  return figures;
}

function hasFigures(figures: OverflowFigures | OverflowInfo): boolean {
  return (
    figures.window !== undefined ||
    figures.input !== undefined ||
    figures.output !== undefined ||
    figures.total !== undefined ||
    figures.outputLimit !== undefined
  );
}

/** The match of one row, or `undefined`. */
function matchRow(row: OverflowPattern | OverflowRow, text: string): RowMatch | undefined {
  row.pattern.lastIndex = 0;
  const match = row.pattern.exec(text);
  if (!match) return undefined;
  const derive = 'figures' in row ? row.figures : undefined;
  const raw = figuresOf(match.groups);
  const figures = derive ? derive(raw) : raw;
  return { row, figures, weak: 'generic' in row && row.generic === true && !hasFigures(figures) };
}

/**
 * First match wins, except that a weak match is kept aside while later rows may still yield figures.
 * User rows run as they are (a linear pattern has its own quick test); catalog rows are skipped when
 * the text lacks every literal their pattern requires.
 */
function scanRows(
  text: string,
  patterns: readonly OverflowPattern[],
  catalog: readonly OverflowRow[],
): RowMatch | undefined {
  let fallback: RowMatch | undefined;
  for (const row of patterns) {
    const match = matchRow(row, text);
    if (match && !match.weak) return match;
    fallback ??= match;
  }
  const lower = text.toLowerCase();
  const words = wordsOf(lower);
  const literals = requiredLiteralsOf(catalog);
  for (let index = 0; index < catalog.length; index += 1) {
    if (!holdsOneOf(lower, words, literals[index] ?? [])) continue;
    const match = matchRow(catalog[index] as OverflowRow, text);
    if (match && !match.weak) return match;
    fallback ??= match;
  }
  return fallback;
}

/**
 * context vs budget from the figures, when the message states the prompt, the output and the window:
 * the prompt alone over the window is context, else budget. A message without an output figure is
 * about the prompt alone (or says nothing of the output) and keeps its row's kind.
 */
function kindOf(row: OverflowPattern | OverflowRow, figures: OverflowFigures): OverflowKind {
  const decided = 'kindFrom' in row ? row.kindFrom?.(figures) : undefined;
  if (decided) return decided;
  const { input, output, window } = figures;
  if (
    (row.kind === 'context' || row.kind === 'budget') &&
    input !== undefined &&
    output !== undefined &&
    window !== undefined
  )
    return input > window ? 'context' : 'budget';
  return row.kind;
}

/** A status stated in the text ("Error code: 400", "status 500:", `"code": 413`), for stream errors. */
export const STATED_STATUS =
  /\b(?:status(?: code)?|error code|http|api error|request failed)[\s:=_-]{0,3}([1-5]\d\d)\b|["']?\b(?:code|status|http_code|statusCode|httpStatusCode)["']?: ?["']?([1-5]\d\d)\b/i;

function statusOf(explicit: number | undefined, fromError: number | undefined, text: string) {
  const given = httpStatus(explicit) ?? fromError;
  if (given !== undefined && given !== 200) return given;
  const stated = STATED_STATUS.exec(text);
  return httpStatus(stated?.[1] ?? stated?.[2]) ?? given;
}

function infoOf({ row, figures }: RowMatch): OverflowInfo {
  const info = overflowInfo(kindOf(row, figures), figures, row.name);
  if ('units' in row && row.units) info.units = row.units;
  return info;
}

/** The normalized text `classifyOverflow` scans for these inputs: what a user pattern must match. */
export function overflowScanText({ body, error }: Pick<ClassifyOverflowOptions, 'body' | 'error'>): string {
  return normalizeScanText(errorEventsOf(capScanText(collectEvidence(body, error).texts.join('\n'))));
}

function hasFigureFields(info: OverflowInfo): boolean {
  return hasFigures(info);
}

/** The catalog's answer for the text, retried on the text with terminal wraps joined when it lacks figures. */
function catalogMatch(
  text: string,
  events: string,
  patterns: readonly OverflowPattern[],
  catalog: readonly OverflowRow[],
): RowMatch | undefined {
  const match = scanRows(text, patterns, catalog);
  if (match && hasFigures(match.figures)) return match;
  const joined = joinWrappedWords(events);
  const rejoined = joined === undefined ? undefined : scanRows(normalizeScanText(joined), patterns, catalog);
  return rejoined && (hasFigures(rejoined.figures) || !match) ? rejoined : match;
}

function isGenericRow(row: OverflowPattern | OverflowRow): boolean {
  return 'generic' in row && row.generic === true;
}

function figureCount(figures: OverflowFigures): number {
  return [figures.window, figures.input, figures.output, figures.total, figures.outputLimit].filter(
    (figure) => figure !== undefined,
  ).length;
}

/** The generic layer beats generic catalog wording when it reads more figures from the same text. */
function outranks(generic: OverflowInfo | undefined, match: RowMatch): boolean {
  return (
    generic !== undefined && generic.kind !== 'none' && figureCount(generic) > figureCount(match.figures)
  );
}

/**
 * A served request: `none`. A reply cut at its output limit keeps the usage figures it states, as the
 * generic layer's gate does; nothing else a 2xx says is read.
 */
function servedAnswer(text: string): OverflowInfo {
  if (nearMissGate(text) !== OUTPUT_TRUNCATED_GATE) return { kind: 'none', pattern: SUCCESS_STATUS_PATTERN };
  return overflowInfo('none', extractFigures(text).figures, SUCCESS_STATUS_PATTERN);
}

/**
 * An error event inside a 200 stream is the error itself: the 200 belongs to the stream, so the status
 * counts as unknown unless the body states one.
 */
function effectiveStatus(status: number | undefined, raw: string, events: string): number | undefined {
  return status === 200 && SSE_DATA_LINE.test(raw) && events.trim() !== '' ? undefined : status;
}

/** The generic layer's answer, retried on the text with terminal wraps joined when it lacks figures. */
function genericMatch(text: string, events: string, status: number | undefined): OverflowInfo | undefined {
  const plain = classifyGeneric({ text, ...(status !== undefined && { status }) });
  if (plain && (plain.kind === 'none' || hasFigureFields(plain))) return plain;
  const joined = joinWrappedWords(events);
  if (joined === undefined) return plain;
  const rejoined = classifyGeneric({
    text: normalizeScanText(joined),
    ...(status !== undefined && { status }),
  });
  return rejoined && hasFigureFields(rejoined) ? rejoined : plain;
}

/**
 * Classifies a provider rejection. A 2xx answer is never an overflow, unless it carries an error of
 * its own (an SSE error event, an error envelope in place of the answer): that is decided first, here,
 * for every caller that passes a status. Then it tries the caller's `patterns`, then {@link OVERFLOW_CATALOG}; the
 * first match wins, except that generic wording without figures is weak. What no row recognizes (or
 * only weak wording does) goes to the generic layer: near-miss gates (rate limits, quotas, auth,
 * byte sizes, overloads, truncated replies) keep it at `none`; otherwise the figures it states are
 * read whatever the wording, and the kind follows from how they relate (prompt over the window:
 * context; prompt within it but prompt + output over it: budget; output over its cap: output_cap),
 * or from the words when no figure decides. Weak catalog wording counts only at an unknown status or
 * 400/413/422; provider rows classify at any status (LocalAI sends overflows as 500, LiteLLM as 503).
 * A bare 413 is an overflow only when `lastEstimate >= 0.8 * window`. Any input, of any size, is
 * scanned in bounded time: at most the first 32 KiB and the last 16 KiB of it, by patterns that
 * cannot backtrack, and at most 64 numbers are read.
 *
 * @example
 * classifyOverflow({
 *   status: 400,
 *   body: '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}',
 * });
 * // { kind: 'context', window: 200000, input: 208310, pattern: 'anthropic-prompt-too-long' }
 */
export function classifyOverflow(options: ClassifyOverflowOptions): OverflowInfo {
  // Nothing to classify (a caller passing no options) is no overflow, as an empty body is.
  const {
    status,
    body,
    error,
    lastEstimate,
    window,
    patterns = [],
    catalog = OVERFLOW_CATALOG,
  } = options ?? ({} as ClassifyOverflowOptions);
  const evidence = collectEvidence(body, error);
  const raw = capScanText(evidence.texts.join('\n'));
  if (isSuccessfulAnswer({ status: httpStatus(status) ?? evidence.status, text: raw }))
    return servedAnswer(normalizeScanText(raw));
  const events = errorEventsOf(raw);
  const text = normalizeScanText(events);
  const match = catalogMatch(text, events, patterns, catalog);
  if (match && !match.weak && !isGenericRow(match.row)) return infoOf(match);
  const effective = effectiveStatus(statusOf(status, evidence.status, text), raw, events);
  const generic = genericMatch(text, events, effective);
  if (match && !match.weak) return outranks(generic, match) ? (generic as OverflowInfo) : infoOf(match);
  if (
    generic &&
    generic.kind !== 'none' &&
    (hasFigureFields(generic) || generic.pattern === GENERIC_FINISH_REASON_PATTERN)
  )
    return generic;
  // A gate or figures that show the request fitting outrank generic wording.
  if (generic?.kind === 'none') return generic;
  const weakAllowed = effective === undefined || WEAK_EVIDENCE_STATUSES.includes(effective);
  if (match && weakAllowed) return infoOf(match);
  // Words without figures are weak evidence, as generic catalog wording is.
  if (generic && weakAllowed) return generic;
  if (
    !match &&
    effective === 413 &&
    lastEstimate !== undefined &&
    window !== undefined &&
    window > 0 &&
    lastEstimate >= NEAR_WINDOW_RATIO * window
  )
    return { kind: 'context', pattern: HTTP_413_NEAR_WINDOW_PATTERN };
  const none: OverflowInfo = { kind: 'none', pattern: NO_MATCH_PATTERN };
  if (!match && effective !== undefined && WEAK_EVIDENCE_STATUSES.includes(effective))
    none.unclassified = true;
  return none;
}
