/**
 * Drives `spillway chat` in a real terminal: tmux on a private socket, the CLI started from source,
 * screens read with `capture-pane`. Every wait polls the screen for what it expects, with a generous
 * deadline, never a fixed time.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Whether tmux can be run here. */
export const hasTmux = (() => {
  try {
    execFileSync('tmux', ['-V']);
    return true;
  } catch {
    return false;
  }
})();

const quote = (part: string) => `'${part.replace(/'/g, `'\\''`)}'`;

/** A tmux server of its own, for one test file. */
export function createTerminal(name: string) {
  const socket = `spillway-${name}-${process.pid}`;
  const tmux = (...args: string[]): string =>
    execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });

  /** The whole pane, scrollback included, wrapped lines joined. */
  const screen = (target: string): string => tmux('capture-pane', '-p', '-J', '-S', '-', '-t', target);

  /** The visible rows, as the terminal shows them (no joining). */
  const rows = (target: string): string[] => tmux('capture-pane', '-p', '-t', target).split('\n');

  async function waitFor(
    target: string,
    expected: string | RegExp | ((text: string) => boolean),
    timeout = 30_000,
  ): Promise<string> {
    const deadline = Date.now() + timeout;
    for (;;) {
      const text = screen(target);
      const found =
        typeof expected === 'string'
          ? text.includes(expected)
          : expected instanceof RegExp
            ? expected.test(text)
            : expected(text);
      if (found) return text;
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${String(expected)}; the screen:\n${text}`);
      await sleep(100);
    }
  }

  /** Types text literally, then Enter. */
  function type(target: string, text: string): void {
    tmux('send-keys', '-t', target, '-l', text);
    tmux('send-keys', '-t', target, 'Enter');
  }

  function keys(target: string, ...names: string[]): void {
    tmux('send-keys', '-t', target, ...names);
  }

  /** Pastes text the way a terminal does (bracketed paste when the program asked for it). */
  function paste(target: string, text: string): void {
    tmux('set-buffer', '-b', 'spillway', text);
    tmux('paste-buffer', '-p', '-d', '-b', 'spillway', '-t', target);
  }

  /**
   * Starts a shell line in a new session: `chat ARGS` runs the CLI from source with the environment
   * given (API keys unset unless given), and the exit code is printed as `[exited N]`.
   */
  function start(
    target: string,
    {
      cwd,
      args,
      env = {},
      before = '',
      width = 200,
      height = 50,
    }: {
      cwd: string;
      args: string[];
      env?: Record<string, string>;
      before?: string;
      width?: number;
      height?: number;
    },
  ): void {
    const loader = join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs');
    const command = [
      'env',
      '-u',
      'OPENAI_API_KEY',
      '-u',
      'ANTHROPIC_API_KEY',
      '-u',
      'SPILLWAY_API_KEY',
      'NO_COLOR=1',
      ...Object.entries(env).map(([key, value]) => `${key}=${value}`),
      process.execPath,
      '--import',
      loader,
      join(root, 'src', 'cli', 'bin.ts'),
      'chat',
      ...args,
    ]
      .map(quote)
      .join(' ');
    tmux(
      'new-session',
      '-d',
      '-s',
      target,
      '-x',
      String(width),
      '-y',
      String(height),
      '-c',
      cwd,
      `${before}${command}; echo "[exited $?]"; sleep 600`,
    );
  }

  function close(): void {
    if (!hasTmux) return;
    try {
      tmux('kill-server');
    } catch {
      // Already gone.
    }
  }

  return { tmux, screen, rows, waitFor, type, keys, paste, start, close };
}

/** How often `part` occurs in `text`. */
export const occurrences = (text: string, part: string) => text.split(part).length - 1;
