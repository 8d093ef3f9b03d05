import { EventEmitter } from 'node:events';

/** The terminal as readline sees it, with its resize events held back while the chat is busy. */
export interface GatedOutput {
  /** What readline is given as its output. */
  readonly stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };
  /** Holds resize events back (`true`) or lets them through again (`false`). */
  hold(held: boolean): void;
  close(): void;
}

/**
 * Readline redraws its prompt line on every resize: it moves to the start of the cursor's row, clears
 * the screen below and writes the prompt, which in the middle of a streamed reply wipes the line
 * being written and leaves a stray `›`. Readline writes through this stream, which passes writes
 * on and passes resizes only while the prompt is up.
 *
 * @example
 * const gated = gateResize(process.stdout);
 * const rl = createInterface({ input, output: gated.stream, terminal: true });
 * gated.hold(true); // a reply is streaming
 */
export function gateResize(
  output: NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number },
): GatedOutput {
  let held = false;
  const stream = Object.assign(new EventEmitter(), {
    isTTY: output.isTTY,
    get columns() {
      return output.columns;
    },
    get rows() {
      return output.rows;
    },
    write: (...args: unknown[]) => (output.write as (...parts: unknown[]) => boolean)(...args),
  }) as unknown as GatedOutput['stream'];
  const onResize = () => {
    if (!held) stream.emit('resize');
  };
  output.on('resize', onResize);
  return {
    stream,
    hold(next) {
      held = next;
    },
    close() {
      output.removeListener('resize', onResize);
    },
  };
}
