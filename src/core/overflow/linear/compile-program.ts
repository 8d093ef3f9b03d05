/**
 * @module
 * The syntax tree compiled to a Thompson NFA program (Pike's instruction set, plus the resets that
 * give capture groups inside quantifiers JavaScript's values), and the checks that keep a program
 * small and its matches equal to JavaScript's.
 */
import type { PatternProblem } from './parse-pattern.js';
import { type CharTest, canonicalize, foldSet, type PatternNode } from './syntax.js';

/** One instruction of the program. */
export type Instruction =
  | { op: 'char'; code: number }
  | { op: 'set'; test: CharTest }
  | { op: 'assert'; kind: 'start' | 'end' | 'word-boundary' | 'not-word-boundary' }
  | { op: 'split'; first: number; second: number }
  | { op: 'jump'; to: number }
  | { op: 'save'; slot: number }
  | { op: 'reset'; from: number; to: number }
  | { op: 'match' };

/** The most instructions a program may have: `{n,m}` unrolls its body, so this bounds the work per character. */
export const MAX_PROGRAM_SIZE = 10_000;

class TooLarge extends Error {}

/** Whether a node can match the empty string. */
export function nullable(node: PatternNode): boolean {
  switch (node.type) {
    case 'char':
    case 'set':
    case 'any':
      return false;
    case 'assert':
      return true;
    case 'group':
      return nullable(node.body);
    case 'alternation':
      return node.alternatives.some(nullable);
    case 'sequence':
      return node.items.every(nullable);
    case 'repeat':
      return node.min === 0 || nullable(node.body);
  }
}

/**
 * The first quantifier whose optional iterations could match nothing (`(a?)*`, `(?:)+`, `(\b)?`).
 * JavaScript gives such an iteration special treatment a Thompson NFA cannot follow exactly, so the
 * subset leaves them out; a fixed count (`(a?){25}`) has no optional iteration and is kept.
 */
export function emptyLoop(node: PatternNode): PatternProblem | undefined {
  switch (node.type) {
    case 'group':
      return emptyLoop(node.body);
    case 'alternation':
      return node.alternatives.map(emptyLoop).find((problem) => problem !== undefined);
    case 'sequence':
      return node.items.map(emptyLoop).find((problem) => problem !== undefined);
    case 'repeat':
      if (node.max > node.min && nullable(node.body))
        return {
          construct: `a quantifier over something that can match nothing (at ${node.at})`,
          index: node.at,
          fix: 'make the repeated part match at least one character, e.g. (a)* instead of (a?)*',
        };
      return emptyLoop(node.body);
    default:
      return undefined;
  }
}

class Emitter {
  readonly program: Instruction[] = [];

  constructor(readonly ignoreCase: boolean) {}

  emit(instruction: Instruction): number {
    if (this.program.length >= MAX_PROGRAM_SIZE) throw new TooLarge();
    this.program.push(instruction);
    return this.program.length - 1;
  }

  node(node: PatternNode): void {
    switch (node.type) {
      case 'char':
        if (this.ignoreCase) this.emit({ op: 'char', code: canonicalize(node.code) });
        else this.emit({ op: 'set', test: (code) => code === node.code });
        return;
      case 'set': {
        const test = this.ignoreCase ? foldSet(node.test) : node.test;
        this.emit({ op: 'set', test: node.negated ? (code) => !test(code) : test });
        return;
      }
      case 'any':
        this.emit({ op: 'set', test: () => true });
        return;
      case 'assert':
        this.emit({ op: 'assert', kind: node.kind });
        return;
      case 'group':
        if (node.index !== undefined) this.emit({ op: 'save', slot: node.index * 2 });
        this.node(node.body);
        if (node.index !== undefined) this.emit({ op: 'save', slot: node.index * 2 + 1 });
        return;
      case 'sequence':
        for (const item of node.items) this.node(item);
        return;
      case 'alternation':
        this.alternation(node.alternatives);
        return;
      case 'repeat':
        this.repeat(node);
    }
  }

  alternation(alternatives: readonly PatternNode[]): void {
    const jumps: number[] = [];
    alternatives.forEach((alternative, index) => {
      const last = index === alternatives.length - 1;
      const split = last ? -1 : this.emit({ op: 'split', first: 0, second: 0 });
      if (split >= 0) (this.program[split] as { first: number }).first = this.program.length;
      this.node(alternative);
      if (!last) jumps.push(this.emit({ op: 'jump', to: 0 }));
      if (split >= 0) (this.program[split] as { second: number }).second = this.program.length;
    });
    for (const jump of jumps) (this.program[jump] as { to: number }).to = this.program.length;
  }

  iteration(node: Extract<PatternNode, { type: 'repeat' }>): void {
    if (node.groups) this.emit({ op: 'reset', from: node.groups.first * 2, to: node.groups.last * 2 + 1 });
    this.node(node.body);
  }

  /** Points a split at the body (preferred when greedy) and at `exit`. */
  patchSplit(split: number, body: number, exit: number, greedy: boolean): void {
    this.program[split] = greedy
      ? { op: 'split', first: body, second: exit }
      : { op: 'split', first: exit, second: body };
  }

  /**
   * The iterations past the minimum. Unbounded: one loop. Bounded: nested, as JavaScript reads
   * `a{0,3}`, so skipping one iteration skips the rest: `(?:a(?:a(?:a)?)?)?`.
   */
  optionals(node: Extract<PatternNode, { type: 'repeat' }>): void {
    if (!Number.isFinite(node.max)) {
      const split = this.emit({ op: 'split', first: 0, second: 0 });
      this.iteration(node);
      this.emit({ op: 'jump', to: split });
      this.patchSplit(split, split + 1, this.program.length, node.greedy);
      return;
    }
    const splits: number[] = [];
    for (let count = node.min; count < node.max; count += 1) {
      splits.push(this.emit({ op: 'split', first: 0, second: 0 }));
      this.iteration(node);
    }
    for (const split of splits) this.patchSplit(split, split + 1, this.program.length, node.greedy);
  }

  repeat(node: Extract<PatternNode, { type: 'repeat' }>): void {
    for (let count = 0; count < node.min; count += 1) this.iteration(node);
    this.optionals(node);
  }
}

/** The compiled program, or `undefined` when it would exceed {@link MAX_PROGRAM_SIZE} instructions. */
export function compileProgram(tree: PatternNode, ignoreCase: boolean): Instruction[] | undefined {
  const emitter = new Emitter(ignoreCase);
  try {
    emitter.emit({ op: 'save', slot: 0 });
    emitter.node(tree);
    emitter.emit({ op: 'save', slot: 1 });
    emitter.emit({ op: 'match' });
    return emitter.program;
  } catch (error) {
    if (error instanceof TooLarge) return undefined;
    throw error;
  }
}
