/**
 * @module
 * Parses a pattern of the linear subset, or says which construct is outside it and what to write
 * instead. The subset: literals and escapes (`\.`, `\n`, `\xHH`, `\uHHHH`), `.`, `\d \w \s \D \W \S`,
 * classes `[a-z_]` and `[^…]`, anchors `^ $ \b \B`, groups `( )`, `(?: )`, `(?<name> )`,
 * alternation `|`, quantifiers `* + ? {n} {n,} {n,m}` (greedy or lazy). Outside it: backreferences,
 * lookahead and lookbehind, Unicode property escapes, control escapes, and quantifiers whose optional
 * iterations could match nothing (`(a?)*`).
 */
import { type CharTest, isDigit, isNotLineTerminator, isSpace, isWord, type PatternNode } from './syntax.js';

/** Why a pattern is outside the subset: the construct, where it is, and what to write instead. */
export interface PatternProblem {
  construct: string;
  index: number;
  fix: string;
}

/** A parsed pattern, or the first problem found. */
export type ParseResult =
  | { success: true; tree: PatternNode; groupNames: string[]; groupCount: number }
  | { success: false; problem: PatternProblem };

/** The largest repeat count accepted: `{n,m}` is unrolled into the program. */
export const MAX_REPEAT = 1_000;

class Unsupported extends Error {
  constructor(readonly problem: PatternProblem) {
    super(problem.construct);
  }
}

const CLASS_ESCAPES: Record<string, CharTest> = {
  d: isDigit,
  D: (code) => !isDigit(code),
  w: isWord,
  W: (code) => !isWord(code),
  s: isSpace,
  S: (code) => !isSpace(code),
};

const CONTROL_ESCAPES: Record<string, number> = { n: 0x0a, r: 0x0d, t: 0x09, f: 0x0c, v: 0x0b, '0': 0 };

class Parser {
  position = 0;
  groupCount = 0;
  readonly groupNames: string[] = [];

  constructor(readonly source: string) {}

  fail(construct: string, index: number, fix: string): never {
    throw new Unsupported({ construct, index, fix });
  }

  peek(offset = 0): string | undefined {
    return this.source[this.position + offset];
  }

  alternation(): PatternNode {
    const alternatives = [this.sequence()];
    while (this.peek() === '|') {
      this.position += 1;
      alternatives.push(this.sequence());
    }
    return alternatives.length === 1
      ? (alternatives[0] as PatternNode)
      : { type: 'alternation', alternatives };
  }

  sequence(): PatternNode {
    const items: PatternNode[] = [];
    for (let next = this.peek(); next !== undefined && next !== '|' && next !== ')'; next = this.peek())
      items.push(this.quantified());
    return items.length === 1 ? (items[0] as PatternNode) : { type: 'sequence', items };
  }

  quantified(): PatternNode {
    const firstGroup = this.groupCount + 1;
    const atom = this.atom();
    const at = this.position;
    const bounds = this.quantifier();
    if (!bounds) return atom;
    if (atom.type === 'assert')
      this.fail(
        `a quantifier on an anchor (at ${at})`,
        at,
        'remove the quantifier: an anchor matches no character',
      );
    const greedy = this.peek() !== '?';
    if (!greedy) this.position += 1;
    const groups = this.groupCount >= firstGroup ? { first: firstGroup, last: this.groupCount } : undefined;
    return { type: 'repeat', body: atom, min: bounds.min, max: bounds.max, greedy, groups, at };
  }

  quantifier(): { min: number; max: number } | undefined {
    const next = this.peek();
    if (next === '*' || next === '+' || next === '?') {
      this.position += 1;
      return { min: next === '+' ? 1 : 0, max: next === '?' ? 1 : Number.POSITIVE_INFINITY };
    }
    if (next !== '{') return undefined;
    const bounds = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.position));
    if (!bounds) return undefined;
    const min = Number(bounds[1]);
    const max =
      bounds[2] === undefined ? min : bounds[3] === '' ? Number.POSITIVE_INFINITY : Number(bounds[3]);
    if (min > MAX_REPEAT || (Number.isFinite(max) && max > MAX_REPEAT))
      this.fail(
        `the repeat count ${bounds[0]} (at ${this.position})`,
        this.position,
        `use counts up to ${MAX_REPEAT}, or + or *`,
      );
    this.position += bounds[0].length;
    return { min, max };
  }

  atom(): PatternNode {
    const at = this.position;
    const next = this.peek() as string;
    this.position += 1;
    if (next === '.') return { type: 'set', test: isNotLineTerminator };
    if (next === '^') return { type: 'assert', kind: 'start' };
    if (next === '$') return { type: 'assert', kind: 'end' };
    if (next === '(') return this.group(at);
    if (next === '[') return this.characterClass(at);
    if (next === '\\') return this.escape(at);
    if (next === '*' || next === '+' || next === '?')
      this.fail(`a quantifier with nothing to repeat (at ${at})`, at, `escape it as \\${next}`);
    return { type: 'char', code: next.charCodeAt(0) };
  }

  group(at: number): PatternNode {
    let name: string | undefined;
    let capturing = true;
    if (this.peek() === '?') {
      const head = this.source.slice(this.position, this.position + 3);
      if (head.startsWith('?:')) {
        capturing = false;
        this.position += 2;
      } else if (head === '?<=' || head === '?<!' || head.startsWith('?=') || head.startsWith('?!')) {
        const kind = head.startsWith('?<') ? 'lookbehind' : 'lookahead';
        this.fail(
          `a ${kind} (${kind === 'lookbehind' ? head : head.slice(0, 2)} at ${at})`,
          at,
          'match the surrounding text itself, or use an unnamed group (?:…) for the part you want to skip',
        );
      } else {
        const named = /^\?<([A-Za-z_$][\w$]*)>/.exec(this.source.slice(this.position));
        if (!named) this.fail(`a group modifier (${head} at ${at})`, at, 'use (…), (?:…) or (?<name>…)');
        name = named[1];
        this.position += named[0].length;
      }
    }
    const index = capturing ? ++this.groupCount : undefined;
    if (name !== undefined) this.groupNames.push(name);
    const body = this.alternation();
    if (this.peek() !== ')') this.fail(`an unclosed group (at ${at})`, at, 'close it with )');
    this.position += 1;
    return { type: 'group', index, name, body };
  }

  escape(at: number): PatternNode {
    const next = this.peek();
    if (next === undefined) this.fail(`a trailing backslash (at ${at})`, at, 'escape it as \\\\');
    this.position += 1;
    if (next === 'b' || next === 'B')
      return { type: 'assert', kind: next === 'b' ? 'word-boundary' : 'not-word-boundary' };
    const set = CLASS_ESCAPES[next];
    if (set) return { type: 'set', test: set };
    return { type: 'char', code: this.escapedCode(next, at) };
  }

  /** The code unit of an escape after its backslash (`n`, `x41`, `u0041`, `.`), shared with classes. */
  escapedCode(next: string, at: number): number {
    if (/[1-9]/.test(next) || (next === 'k' && this.peek() === '<'))
      this.fail(
        `a backreference (\\${next === 'k' ? 'k<…>' : next} at ${at})`,
        at,
        'repeat the text itself instead of referring to a group',
      );
    if (next === 'p' || next === 'P')
      this.fail(
        `a Unicode property escape (\\${next}{…} at ${at})`,
        at,
        'list the characters in a class such as [a-z]',
      );
    if (next === 'c') this.fail(`a control escape (\\c at ${at})`, at, 'write the character as \\xHH');
    const control = CONTROL_ESCAPES[next];
    if (control !== undefined && !(next === '0' && /\d/.test(this.peek() ?? ''))) return control;
    const hex = next === 'x' ? 2 : next === 'u' ? 4 : 0;
    if (hex > 0) {
      const digits = this.source.slice(this.position, this.position + hex);
      if (/^[0-9a-fA-F]+$/.test(digits) && digits.length === hex) {
        this.position += hex;
        return Number.parseInt(digits, 16);
      }
    }
    if (/[A-Za-z0-9]/.test(next))
      this.fail(`the escape \\${next} (at ${at})`, at, `write ${next} without the backslash, or \\xHH`);
    return next.charCodeAt(0);
  }

  characterClass(at: number): PatternNode {
    const negated = this.peek() === '^';
    if (negated) this.position += 1;
    const tests: CharTest[] = [];
    while (this.peek() !== ']') {
      if (this.peek() === undefined) this.fail(`an unclosed class (at ${at})`, at, 'close it with ]');
      const low = this.classMember();
      if (
        this.peek() === '-' &&
        this.peek(1) !== ']' &&
        this.peek(1) !== undefined &&
        typeof low === 'number'
      ) {
        this.position += 1;
        const high = this.classMember();
        if (typeof high !== 'number' || high < low)
          this.fail(`a class range out of order (at ${at})`, at, 'write ranges low to high, such as a-z');
        tests.push((code) => code >= low && code <= high);
      } else tests.push(typeof low === 'number' ? (code) => code === low : low);
    }
    this.position += 1;
    const inClass: CharTest = (code) => tests.some((test) => test(code));
    return { type: 'set', test: inClass, negated };
  }

  classMember(): number | CharTest {
    const at = this.position;
    const next = this.peek() as string;
    this.position += 1;
    if (next !== '\\') return next.charCodeAt(0);
    const escaped = this.peek();
    if (escaped === undefined) this.fail(`a trailing backslash (at ${at})`, at, 'escape it as \\\\');
    this.position += 1;
    if (escaped === 'b') return 0x08;
    return CLASS_ESCAPES[escaped] ?? this.escapedCode(escaped, at);
  }
}

/**
 * Parses `source` as a linear pattern. The source must already be valid JavaScript (callers compile
 * it with `RegExp` first for the syntax error message); this decides whether it is in the subset.
 */
export function parseLinearPattern(source: string): ParseResult {
  const parser = new Parser(source);
  try {
    const tree = parser.alternation();
    if (parser.position < source.length)
      parser.fail(`an unmatched ) (at ${parser.position})`, parser.position, 'remove it or escape it as \\)');
    return { success: true, tree, groupNames: parser.groupNames, groupCount: parser.groupCount };
  } catch (error) {
    if (error instanceof Unsupported) return { success: false, problem: error.problem };
    throw error;
  }
}
