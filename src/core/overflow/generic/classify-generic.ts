/**
 * @module
 * The generic layer under the catalog: a rejection no row recognized, classified from its figures and
 * its words. Near-miss gates first, then structural figure extraction, then the kind from how the
 * figures relate, or from the words when no figure decides.
 */
import { overflowInfo } from '../overflow-info.js';
import type { OverflowFigures, OverflowInfo } from '../types.js';
import { extractFigures } from './extract-figures.js';
import { inferKind } from './infer-kind.js';
import {
  kindFromWords,
  NEAR_MISS_STATUSES,
  nearMissGate,
  OUTPUT_TRUNCATED_GATE,
  TOPIC_WORDS,
} from './vocabulary.js';

/** `pattern` of a result the figures decided. */
export const GENERIC_FIGURES_PATTERN = 'generic-figures';
/** `pattern` of a result the words alone decided. */
export const GENERIC_WORDING_PATTERN = 'generic-wording';
/** `pattern` of a `budget` a finish or stop reason states (`"stop_reason":"model_context_window_exceeded"`). */
export const GENERIC_FINISH_REASON_PATTERN = 'generic-finish-reason';
/** `pattern` of a `none` whose figures show the request fitting (`Input tokens: ~7,123 of 200,000`). */
export const GENERIC_FITS_PATTERN = 'generic-figures-fit';

/** Inputs of {@link classifyGeneric}. */
export interface ClassifyGenericOptions {
  /** The normalized scan text (see `overflowScanText`). */
  text: string;
  /** The effective HTTP status, when known. */
  status?: number;
}

/** Words that mark a 200 body as carrying an error at all (a stream error, a scheduler warning). */
const ERROR_MARK = /error|fail|exceed|warn/i;

function hasAny(figures: OverflowFigures): boolean {
  return Object.values(figures).some((value) => value !== undefined);
}

/**
 * A gated near miss. A reply cut at its output limit keeps the usage figures it states (they count
 * a request that was served); the figures of a throttling or quota message are not about the window.
 */
function gated(gate: string, text: string): OverflowInfo {
  const none: OverflowInfo = { kind: 'none', pattern: gate };
  return gate === OUTPUT_TRUNCATED_GATE ? overflowInfo('none', extractFigures(text).figures, gate) : none;
}

/**
 * Classifies text no catalog row recognized, or returns `undefined` when it says nothing about an
 * overflow (then the caller reports `no-match`). Gated near misses come back as `none` with the
 * gate's name; figures come back only when the text states them.
 *
 * @example
 * classifyGeneric({ text: 'Input length 131393 exceeds the maximum allowed input length of 131040 tokens.' });
 * // { kind: 'context', window: 131040, input: 131393, pattern: 'generic-figures' }
 */
export function classifyGeneric({ text, status }: ClassifyGenericOptions): OverflowInfo | undefined {
  if (status !== undefined && NEAR_MISS_STATUSES.includes(status)) return undefined;
  if (status === 200 && !ERROR_MARK.test(text)) return undefined;
  const gate = nearMissGate(text);
  if (gate !== undefined) return gated(gate, text);
  if (!TOPIC_WORDS.test(text)) return undefined;
  const { figures, negativeOutput, characters } = extractFigures(text);
  const words = kindFromWords(text);
  if (words === 'budget' && !hasAny(figures))
    return { kind: 'budget', pattern: GENERIC_FINISH_REASON_PATTERN };
  const kind = inferKind({ figures, negativeOutput, ...(words && { words }) });
  const stated = hasAny(figures);
  if (!stated && !words && !negativeOutput) return undefined;
  const pattern =
    kind === 'none'
      ? GENERIC_FITS_PATTERN
      : stated || negativeOutput
        ? GENERIC_FIGURES_PATTERN
        : GENERIC_WORDING_PATTERN;
  if (kind === 'none' && !words) return undefined;
  const info = overflowInfo(kind, figures, pattern);
  if (characters && info.window !== undefined) info.units = 'characters';
  return info;
}
