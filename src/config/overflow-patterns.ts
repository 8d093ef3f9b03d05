/**
 * @module
 * User overflow rows (`overflow_patterns` in the config), validated here, outside core, because the
 * shape is checked with zod. Each row's shape is checked, its regex compiled (JavaScript syntax
 * first, for the syntax message), its named groups checked against the figure names, and the regex
 * compiled into a linear-time matcher (core's `compileLinearPattern`): a row outside that subset
 * (backreferences, lookaround, quantifiers over something that can match nothing, huge repeat
 * counts) is an `invalid_config` error that names the construct and what to write instead. No user
 * row can make classification slow, whatever the text: matching is linear by construction.
 */
import { z } from 'zod';
import {
  compileLinearPattern,
  FIGURE_GROUPS,
  OVERFLOW_KINDS,
  type OverflowKind,
  type OverflowPattern,
  SpillwayError,
} from '../core/index.js';

/** The longest user regex accepted. */
export const MAX_USER_REGEX_LENGTH = 1_000;
/** The most user rows accepted. */
export const MAX_USER_ROWS = 200;
/**
 * A user row as written in the config, spelled out so that a type-checker of the published types
 * needs no zod; the schema below is typed with it, so the two cannot drift.
 */
export interface OverflowPatternConfig {
  name: string;
  kind: OverflowKind;
  regex: string;
}

/** One user row: `{ name, kind, regex }`, nothing else (a typo in a key fails). */
const OVERFLOW_PATTERN_ROW: z.ZodType<OverflowPatternConfig> = z.strictObject({
  name: z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9-]{0,63}$/,
      'must be kebab-case: lower-case letters, digits and hyphens, 1-64 long',
    ),
  kind: z.enum(OVERFLOW_KINDS as ['context', 'budget', 'output_cap', 'none']),
  regex: z.string().min(1).max(MAX_USER_REGEX_LENGTH),
});

/** The `overflow_patterns` config value. */
const OVERFLOW_PATTERNS_CONFIG = z.array(OVERFLOW_PATTERN_ROW).max(MAX_USER_ROWS);

/** Options of {@link compileOverflowPatterns}. */
export interface CompileOverflowPatternsOptions {
  /** Where the rows sit in the config, for messages. Default `overflow_patterns`. */
  path?: string;
}

const NAMED_GROUP = /\(\?<([A-Za-z_$][\w$]*)>/g;

function rowLabel(path: string, index: number, name: unknown): string {
  return `${path}[${index}]${typeof name === 'string' ? ` (${JSON.stringify(name)})` : ''}`;
}

function invalid(message: string, data: Record<string, unknown>, cause?: unknown): SpillwayError {
  return new SpillwayError('invalid_config', message, { data, cause });
}

function checkShape(rows: unknown, path: string): OverflowPatternConfig[] {
  const parsed = OVERFLOW_PATTERNS_CONFIG.safeParse(rows);
  if (parsed.success) return parsed.data;
  // A typo in a key also leaves a required key missing: report the typo, it names the fix.
  const issues = parsed.error.issues;
  const issue = issues.find((candidate) => candidate.code === 'unrecognized_keys') ?? issues[0];
  const [index, ...rest] = issue?.path ?? [];
  const name =
    Array.isArray(rows) && typeof index === 'number' ? (rows[index] as { name?: unknown })?.name : undefined;
  const where =
    typeof index === 'number'
      ? `${rowLabel(path, index, name)}${rest.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('')}`
      : path;
  throw invalid(`${where}: ${issue?.message ?? 'invalid'}; each row is { name, kind, regex }`, {
    path: where,
  });
}

function compileRow(row: OverflowPatternConfig, label: string): OverflowPattern {
  try {
    new RegExp(row.regex, 'i');
  } catch (error) {
    throw invalid(
      `${label}: the regex is not valid JavaScript (${(error as Error).message}); fix it or remove the row`,
      { path: label, name: row.name },
      error,
    );
  }
  for (const [, group] of row.regex.matchAll(NAMED_GROUP)) {
    if (!(FIGURE_GROUPS as readonly string[]).includes(group as string))
      throw invalid(
        `${label}: named group "${group}" is not a figure; use ${FIGURE_GROUPS.join(', ')} or an unnamed group`,
        { path: label, name: row.name },
      );
  }
  const compiled = compileLinearPattern(row.regex, { ignoreCase: true });
  if (!compiled.success)
    throw invalid(
      `${label}: the regex uses ${compiled.problem.construct}, which overflow rows do not support (they are matched in linear time); ${compiled.problem.fix}`,
      { path: label, name: row.name, construct: compiled.problem.construct, index: compiled.problem.index },
    );
  return { name: row.name, kind: row.kind, pattern: compiled.pattern };
}

/**
 * Validates and compiles user overflow rows. Throws `SpillwayError('invalid_config')` naming the row
 * for a wrong shape, an unknown kind, a duplicate name, invalid regex syntax, a named group that is
 * not a figure, or a construct outside the linear subset (the message names it and what to write
 * instead). Patterns are matched case-insensitively against the normalized text (`overflowScanText`),
 * in time linear in its length.
 *
 * @example
 * const patterns = compileOverflowPatterns([
 *   { name: 'acme-window', kind: 'context', regex: String.raw`acme: prompt (?<input>\d+) over (?<window>\d+)` },
 * ]);
 * classifyOverflow({ status: 400, body, patterns });
 */
export function compileOverflowPatterns(
  rows: unknown,
  { path = 'overflow_patterns' }: CompileOverflowPatternsOptions = {},
): OverflowPattern[] {
  const valid = checkShape(rows, path);
  const seen = new Map<string, number>();
  return valid.map((row, index) => {
    const label = rowLabel(path, index, row.name);
    const first = seen.get(row.name);
    if (first !== undefined)
      throw invalid(`${label}: the name is already used by ${path}[${first}]; names must be unique`, {
        path: label,
        name: row.name,
      });
    seen.set(row.name, index);
    return compileRow(row, label);
  });
}

/** {@link compileOverflowPatterns} as a result instead of a throw. */
export function safeCompileOverflowPatterns(
  rows: unknown,
  options: CompileOverflowPatternsOptions = {},
): { success: true; patterns: OverflowPattern[] } | { success: false; error: SpillwayError } {
  try {
    return { success: true, patterns: compileOverflowPatterns(rows, options) };
  } catch (error) {
    if (SpillwayError.isInstance(error)) return { success: false, error };
    throw error;
  }
}

/**
 * The overflow rows of a configuration file, compiled; an error in them is `invalid_config` with the
 * file's name in front (`prefix`, e.g. `proxy.json: `).
 */
export function compileConfiguredOverflowPatterns(rows: unknown, prefix: string): OverflowPattern[] {
  if (rows === undefined) return [];
  try {
    return compileOverflowPatterns(rows);
  } catch (error) {
    if (!SpillwayError.isInstance(error)) throw error;
    throw new SpillwayError('invalid_config', `${prefix}${error.message}`, {
      data: error.data,
      cause: error,
    });
  }
}
