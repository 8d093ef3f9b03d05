/**
 * @module
 * Pike's VM: runs a Thompson NFA program over a text in one pass, all threads in priority order, so
 * the match and its captures are the ones a backtracking engine would report (leftmost, then the
 * preferred alternative and quantifier choice), in time proportional to text length × program size.
 */
import type { Instruction } from './compile-program.js';
import { canonicalize, isWord } from './syntax.js';

/** Capture positions: slot 2k is where group k starts, 2k + 1 where it ends (-1 when unset). */
type Captures = Int32Array;

interface Thread {
  pc: number;
  captures: Captures;
}

/** The result of one run: the captures of the match (or `undefined`) and the work it took. */
export interface RunResult {
  captures: Captures | undefined;
  /** Instructions executed: at most about 2 × program size × (text length + 1). */
  steps: number;
}

function wordAt(text: string, index: number): boolean {
  return index >= 0 && index < text.length && isWord(text.charCodeAt(index));
}

function holds(
  kind: Extract<Instruction, { op: 'assert' }>['kind'],
  text: string,
  position: number,
): boolean {
  switch (kind) {
    case 'start':
      return position === 0;
    case 'end':
      return position === text.length;
    case 'word-boundary':
      return wordAt(text, position - 1) !== wordAt(text, position);
    case 'not-word-boundary':
      return wordAt(text, position - 1) === wordAt(text, position);
  }
}

class Machine {
  steps = 0;
  readonly seen: Int32Array;
  generation = 0;

  constructor(
    readonly program: readonly Instruction[],
    readonly text: string,
  ) {
    this.seen = new Int32Array(program.length).fill(-1);
  }

  /** Follows every empty transition from `start`, depth first in priority order; adds the threads that wait for a character. */
  follow(list: Thread[], start: number, captures: Captures, position: number): void {
    const stack: Thread[] = [{ pc: start, captures }];
    while (stack.length > 0) {
      const { pc, captures: current } = stack.pop() as Thread;
      if (this.seen[pc] === this.generation) continue;
      this.seen[pc] = this.generation;
      this.steps += 1;
      const instruction = this.program[pc] as Instruction;
      switch (instruction.op) {
        case 'jump':
          stack.push({ pc: instruction.to, captures: current });
          break;
        case 'split':
          stack.push(
            { pc: instruction.second, captures: current },
            { pc: instruction.first, captures: current },
          );
          break;
        case 'save': {
          const next = current.slice();
          next[instruction.slot] = position;
          stack.push({ pc: pc + 1, captures: next });
          break;
        }
        case 'reset': {
          const next = current.slice();
          next.fill(-1, instruction.from, instruction.to + 1);
          stack.push({ pc: pc + 1, captures: next });
          break;
        }
        case 'assert':
          if (holds(instruction.kind, this.text, position)) stack.push({ pc: pc + 1, captures: current });
          break;
        default:
          list.push({ pc, captures: current });
      }
    }
  }

  accepts(instruction: Instruction, code: number, folded: number): boolean {
    if (instruction.op === 'char') return instruction.code === folded;
    return instruction.op === 'set' && instruction.test(code);
  }

  run(slots: number): RunResult {
    let current: Thread[] = [];
    let matched: Captures | undefined;
    // A pattern that starts with ^ can only start at 0: no fresh thread later, and no work once none is left.
    const second = this.program[1];
    const anchored = second?.op === 'assert' && second.kind === 'start';
    for (let position = 0; position <= this.text.length; position += 1) {
      if (anchored && position > 0 && current.length === 0) break;
      // One generation per position: the threads carried over and the fresh start share it, so no
      // instruction is visited twice at one position.
      this.generation = position + 1;
      if (matched === undefined && (!anchored || position === 0)) {
        const fresh = new Int32Array(slots).fill(-1);
        this.follow(current, 0, fresh, position);
      }
      const next: Thread[] = [];
      this.generation = position + 2;
      const code = position < this.text.length ? this.text.charCodeAt(position) : -1;
      const folded = code < 0 ? -1 : canonicalize(code);
      for (const thread of current) {
        this.steps += 1;
        const instruction = this.program[thread.pc] as Instruction;
        if (instruction.op === 'match') {
          matched = thread.captures;
          break;
        }
        if (code >= 0 && this.accepts(instruction, code, folded))
          this.follow(next, thread.pc + 1, thread.captures, position + 1);
      }
      current = next;
      if (current.length === 0 && matched !== undefined) break;
    }
    return { captures: matched, steps: this.steps };
  }
}

/**
 * Runs `program` over `text` and returns the leftmost match's captures. `slots` is 2 × (groups + 1).
 * The work is bounded by program size × (text length + 1), whatever the pattern and the text.
 */
export function runProgram(program: readonly Instruction[], text: string, slots: number): RunResult {
  return new Machine(program, text).run(slots);
}
