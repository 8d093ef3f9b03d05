/**
 * @module
 * `compileLinearPattern`: a pattern of the linear subset compiled into a matcher with the `exec` /
 * `test` surface of a `RegExp`, whose matches and captures equal JavaScript's and whose running time
 * is linear in the text. What overflow rows from a configuration file are run with.
 */
import { compileProgram, emptyLoop, type Instruction, MAX_PROGRAM_SIZE } from './compile-program.js';
import { type PatternProblem, parseLinearPattern } from './parse-pattern.js';
import { runProgram } from './run-program.js';
import type { PatternNode } from './syntax.js';

/** A match, shaped like the parts of `RegExpExecArray` classification reads. */
export interface LinearMatch {
  /** Where the match starts. */
  index: number;
  /** The matched text. */
  0: string;
  /** Named groups, `undefined` where a group did not take part. */
  groups: Record<string, string | undefined> | undefined;
  /** Instructions the match took (for tests of the linear bound). */
  steps: number;
}

/** A compiled linear pattern. Stateless: `lastIndex` is kept for the `RegExp` surface and ignored. */
export interface LinearPattern {
  readonly source: string;
  readonly flags: string;
  lastIndex: number;
  /** Instructions in the program: the work per character is at most about twice this. */
  readonly size: number;
  exec(text: string): LinearMatch | null;
  test(text: string): boolean;
}

/** {@link compileLinearPattern}'s result. */
export type CompileLinearPatternResult =
  | { success: true; pattern: LinearPattern }
  | { success: false; problem: PatternProblem };

/** Options of {@link compileLinearPattern}. */
export interface CompileLinearPatternOptions {
  /** Match case-insensitively, as the `i` flag does. Default `true` (overflow rows are). */
  ignoreCase?: boolean;
}

/** Literals shorter than this are not worth a quick test. */
const MIN_LITERAL = 2;

function longestRun(node: PatternNode): string {
  const runs: string[] = [];
  let run = '';
  const flush = () => {
    if (run.length > 0) runs.push(run);
    run = '';
  };
  const visit = (item: PatternNode): void => {
    if (item.type === 'char' && item.code < 128) run += String.fromCharCode(item.code);
    else if (item.type === 'group') visit(item.body);
    else if (item.type === 'sequence') for (const part of item.items) visit(part);
    else if (item.type === 'repeat' && item.min >= 1) {
      flush();
      visit(item.body);
      flush();
    } else flush();
  };
  visit(node);
  flush();
  return runs.reduce((longest, candidate) => (candidate.length > longest.length ? candidate : longest), '');
}

/**
 * Literals of ASCII characters one of which every match must contain (a quick test before the
 * program runs), or `[]` when there is no such set. The longest required run of the sequence; for an
 * alternation at the top, one literal from each alternative (`rate…|too many requests`).
 */
export function requiredLiterals(node: PatternNode): string[] {
  const run = longestRun(node);
  if (run.length >= MIN_LITERAL) return [run];
  const inner = node.type === 'group' ? node.body : node;
  if (inner.type !== 'alternation') return [];
  const perAlternative = inner.alternatives.map(requiredLiterals);
  return perAlternative.every((literals) => literals.length > 0) ? perAlternative.flat() : [];
}

/** Whether `text` (lower-cased when `lower`) holds one of `literals`; true when there are none. */
export function holdsOneOf(text: string, literals: readonly string[]): boolean {
  if (literals.length === 0) return true;
  for (const literal of literals) if (text.includes(literal)) return true;
  return false;
}

class CompiledPattern implements LinearPattern {
  lastIndex = 0;
  readonly size: number;

  constructor(
    readonly source: string,
    readonly flags: string,
    private readonly program: readonly Instruction[],
    private readonly names: ReadonlyArray<readonly [string, number]>,
    private readonly slots: number,
    private readonly literals: readonly string[],
  ) {
    this.size = program.length;
  }

  exec(text: string): LinearMatch | null {
    const ignoreCase = this.flags.includes('i');
    if (this.literals.length > 0 && !holdsOneOf(ignoreCase ? text.toLowerCase() : text, this.literals))
      return null;
    const { captures, steps } = runProgram(this.program, text, this.slots);
    if (!captures) return null;
    const groups =
      this.names.length === 0
        ? undefined
        : Object.fromEntries(
            this.names.map(([name, index]) => {
              const start = captures[index * 2] as number;
              const end = captures[index * 2 + 1] as number;
              return [name, start >= 0 && end >= 0 ? text.slice(start, end) : undefined];
            }),
          );
    const index = captures[0] as number;
    return { index, 0: text.slice(index, captures[1] as number), groups, steps };
  }

  test(text: string): boolean {
    return this.exec(text) !== null;
  }
}

function groupIndexes(node: PatternNode, names: Array<readonly [string, number]>): void {
  if (node.type === 'group') {
    if (node.name !== undefined && node.index !== undefined) names.push([node.name, node.index]);
    groupIndexes(node.body, names);
  } else if (node.type === 'sequence') for (const item of node.items) groupIndexes(item, names);
  else if (node.type === 'alternation') for (const item of node.alternatives) groupIndexes(item, names);
  else if (node.type === 'repeat') groupIndexes(node.body, names);
}

/**
 * Compiles `source` (valid JavaScript regular-expression syntax) into a linear matcher, or names the
 * construct outside the subset and what to write instead. Matches, captures and named groups equal
 * those of `new RegExp(source, ignoreCase ? 'i' : '')`; case folding follows ECMAScript's
 * Canonicalize, except for the few characters with three case forms (`µ`, `ſ`).
 *
 * @example
 * const compiled = compileLinearPattern(String.raw`acme: prompt (?<input>\d+) over (?<window>\d+)`);
 * if (compiled.success) compiled.pattern.exec('ACME: prompt 9000 over 8192')?.groups;
 * // { input: '9000', window: '8192' }
 */
export function compileLinearPattern(
  source: string,
  { ignoreCase = true }: CompileLinearPatternOptions = {},
): CompileLinearPatternResult {
  const parsed = parseLinearPattern(source);
  if (!parsed.success) return parsed;
  const loop = emptyLoop(parsed.tree);
  if (loop) return { success: false, problem: loop };
  const program = compileProgram(parsed.tree, ignoreCase);
  if (!program)
    return {
      success: false,
      problem: {
        construct: `a pattern that unrolls to more than ${MAX_PROGRAM_SIZE} instructions`,
        index: 0,
        fix: 'use smaller repeat counts, or + and * instead of large {n,m}',
      },
    };
  const names: Array<readonly [string, number]> = [];
  groupIndexes(parsed.tree, names);
  const literals = requiredLiterals(parsed.tree).map((literal) =>
    ignoreCase ? literal.toLowerCase() : literal,
  );
  return {
    success: true,
    pattern: new CompiledPattern(
      source,
      ignoreCase ? 'i' : '',
      program,
      names,
      2 * (parsed.groupCount + 1),
      literals,
    ),
  };
}
