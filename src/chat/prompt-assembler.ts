/**
 * Lines typed at the prompt made into messages: a line ending in `\` continues on the next, and the
 * lines of a paste (bracketed paste) stay one message, sent with Enter after the paste.
 *
 * @example
 * const assembler = new PromptAssembler();
 * assembler.line('first \\'); // { kind: 'continue' }
 * assembler.line('second'); // { kind: 'prompt', text: 'first \nsecond' }
 */
export class PromptAssembler {
  #pending: string[] = [];
  #pasting = false;

  /** A paste began: its line breaks do not send. */
  pasteStart(): void {
    this.#pasting = true;
  }

  pasteEnd(): void {
    this.#pasting = false;
  }

  /** Whether a message is being continued (for the continuation prompt). */
  get continuing(): boolean {
    return this.#pending.length > 0;
  }

  /** Drops a message being continued (Ctrl+C at the prompt). */
  discard(): void {
    this.#pending = [];
  }

  /** One line: the message it completes, or that more is to come. */
  line(line: string): { kind: 'prompt'; text: string } | { kind: 'continue' } {
    if (this.#pasting) {
      this.#pending.push(line);
      return { kind: 'continue' };
    }
    if (line.endsWith('\\')) {
      this.#pending.push(line.slice(0, -1));
      return { kind: 'continue' };
    }
    const text = [...this.#pending, line].join('\n');
    this.#pending = [];
    return { kind: 'prompt', text };
  }
}
