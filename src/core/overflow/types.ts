/**
 * @module
 * The shapes of overflow classification: kinds, figures, catalog rows and the result.
 */

/**
 * What a rejection means for the next request:
 * - `context`: the prompt alone exceeds the window (remedy: compact or prune);
 * - `budget`: the prompt fits, prompt + requested output does not (remedy: lower `max_tokens`, never compact);
 * - `output_cap`: the requested output exceeds the model's output limit (remedy: lower the cap);
 * - `none`: not an overflow (rate limits, quota, byte-size limits, overloads, auth, anything unknown).
 */
export type OverflowKind = 'context' | 'budget' | 'output_cap' | 'none';

/** Every kind, in a stable order (for validation and reports). */
export const OVERFLOW_KINDS: readonly OverflowKind[] = ['context', 'budget', 'output_cap', 'none'];

/** The figures a message can state, in tokens unless the row says characters. */
export interface OverflowFigures {
  /** The context window (or, for a few servers, the prompt limit they enforce). */
  window?: number;
  /** Prompt tokens. */
  input?: number;
  /** Requested output tokens (`max_tokens`). */
  output?: number;
  /** Prompt + output, when the message states the sum. */
  total?: number;
  /** The model's output limit. */
  outputLimit?: number;
}

/** The named groups a pattern may use; `output_limit` fills {@link OverflowFigures.outputLimit}. */
export const FIGURE_GROUPS = ['window', 'total', 'input', 'output', 'output_limit'] as const;

/** One named group of {@link FIGURE_GROUPS}. */
export type FigureGroup = (typeof FIGURE_GROUPS)[number];

/**
 * What a row's pattern offers: the `exec` / `test` surface of a `RegExp`. Catalog rows use `RegExp`
 * (written and checked here); user rows from a configuration file use a linear pattern (see
 * `compileLinearPattern`), which matches the same way in time linear in the text.
 */
export interface OverflowMatcher {
  readonly source: string;
  readonly flags: string;
  lastIndex: number;
  exec(text: string): { readonly groups?: Record<string, string | undefined> | undefined } | null;
  test(text: string): boolean;
}

/**
 * A compiled pattern: what user rows are once `compileOverflowPatterns` (outside core) has checked
 * them, and the common part of every catalog row. The pattern runs against the normalized scan text
 * (whitespace collapsed to single spaces, JSON and Python escapes undone) and should not carry the
 * `g` or `y` flag.
 */
export interface OverflowPattern {
  /** Stable kebab-case name, reported as {@link OverflowInfo.pattern}. */
  readonly name: string;
  /** The kind when the figures do not decide it. */
  readonly kind: OverflowKind;
  /** Named groups among {@link FIGURE_GROUPS} carry the figures. A `RegExp` or a linear pattern. */
  readonly pattern: OverflowMatcher;
}

/** A built-in catalog row: a pattern plus where it comes from. */
export interface OverflowRow extends OverflowPattern {
  /** Catalog rows are regular expressions, checked for catastrophic backtracking in the tests. */
  readonly pattern: RegExp;
  /** Who sends this wording (`generic` for wording shared by many). */
  readonly provider: string;
  /** A real message this row was made for, verbatim from its source. */
  readonly example: string;
  /** Where the example was observed: an issue address, a repository path, or a corpus row id. */
  readonly source: string;
  /**
   * Generic wording. A generic match that yields no figures is weak evidence: it classifies only
   * when the HTTP status is unknown, 400, 413 or 422, and any later row that yields figures wins.
   */
  readonly generic?: boolean;
  /** The figures count characters, not tokens (never learned as a window). */
  readonly units?: 'characters';
  /**
   * The sender checks the prompt alone against the window (it never rejects a request for its
   * `max_tokens`): learned with the window, so the reply reserve shrinks to what a reply needs.
   */
  readonly windowCheck?: 'prompt';
  /** Arithmetic the named groups cannot express (an exclusive bound, a sum of parts). */
  readonly figures?: (figures: OverflowFigures) => OverflowFigures;
  /** A row-specific kind decision; `undefined` falls back to the general rule. */
  readonly kindFrom?: (figures: OverflowFigures) => OverflowKind | undefined;
}

/** The result of `classifyOverflow`. Figures are present only when the message states them. */
export interface OverflowInfo extends OverflowFigures {
  kind: OverflowKind;
  /** The name of the row that decided, or a fixed name: `no-match`, `http-413-near-window`. */
  pattern: string;
  /** Present when the figures count characters rather than tokens. */
  units?: 'characters';
  /**
   * Present on a 400, 413 or 422 rejection that no row recognized: it may be an overflow in wording
   * Spillway does not know. Log the body and add a row to `overflow_patterns`.
   */
  unclassified?: true;
}
