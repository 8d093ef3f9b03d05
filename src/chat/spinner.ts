/**
 * @module
 * The line that says the chat is working while nothing else moves on screen: a spinner, the time
 * since the prompt was sent, and the tokens sent and received so far. It lives on its own line and
 * is cleared before anything else is written there.
 */
import { formatTokens } from '../core/index.js';

/** Braille frames, as most terminal spinners use. */
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** Redraw interval, in milliseconds. */
export const SPINNER_INTERVAL_MS = 100;

/** What the spinner shows. */
export interface SpinnerState {
  /** What is going on: `waiting for the reply`, `thinking`, `run_command`. */
  activity: string;
  /** Prompt tokens of the request: the estimate, then the provider's count. */
  sent?: number;
  /** Whether `sent` is the provider's count. */
  sentCounted?: boolean;
  /** Estimated tokens received so far in this reply. */
  received?: number;
}

/** The spinner's line, within `columns` characters. */
export function spinnerLine({
  frame,
  elapsedMs,
  state,
  columns,
}: {
  frame: number;
  elapsedMs: number;
  state: SpinnerState;
  columns: number;
}): string {
  const parts = [`${FRAMES[frame % FRAMES.length]} ${(elapsedMs / 1_000).toFixed(1)}s`, state.activity];
  if (state.sent !== undefined)
    parts.push(`${state.sentCounted ? '' : '≈'}${formatTokens(state.sent)} tokens sent`);
  if (state.received) parts.push(`≈${formatTokens(state.received)} received`);
  const line = parts.join(' · ');
  // One column short of the width: a line that fills it wraps in some terminals, and `\r` then
  // clears only its second row.
  return line.length < columns ? line : `${line.slice(0, Math.max(1, columns - 2))}…`;
}

/** A spinner on a terminal. */
export interface Spinner {
  /** Starts (or keeps) spinning; the clock runs from `since`. */
  start(state: SpinnerState, since: number): void;
  /** Changes what it shows. */
  update(change: Partial<SpinnerState>): void;
  /** Clears its line; the cursor is back at the start of it. */
  stop(): void;
  readonly active: boolean;
}

/**
 * A spinner writing to `output`, redrawn every {@link SPINNER_INTERVAL_MS}.
 *
 * @example
 * const spinner = createSpinner({ output: process.stdout, now: Date.now });
 * spinner.start({ activity: 'waiting for the reply', sent: 4_600 }, Date.now());
 */
export function createSpinner({
  output,
  now,
}: {
  output: { write(text: string): unknown; columns?: number };
  now: () => number;
}): Spinner {
  let timer: ReturnType<typeof setInterval> | undefined;
  let state: SpinnerState = { activity: '' };
  let since = 0;
  let frame = 0;
  const draw = () => {
    const line = spinnerLine({
      frame: frame++,
      elapsedMs: now() - since,
      state,
      columns: output.columns ?? 80,
    });
    output.write(`\r\x1b[2K\x1b[2m${line}\x1b[0m`);
  };
  return {
    start(next, at) {
      state = next;
      since = at;
      if (timer === undefined) {
        timer = setInterval(draw, SPINNER_INTERVAL_MS);
        timer.unref();
      }
      draw();
    },
    update(change) {
      state = { ...state, ...change };
    },
    stop() {
      if (timer === undefined) return;
      clearInterval(timer);
      timer = undefined;
      output.write('\r\x1b[2K');
    },
    get active() {
      return timer !== undefined;
    },
  };
}
