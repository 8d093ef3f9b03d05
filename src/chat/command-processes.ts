/**
 * @module
 * Every process a command started, found again when it must stop, even those that left its process
 * group. A process group is not enough: `setsid`, `nohup … &` with `setsid -f`, and daemons that
 * double-fork start a session of their own, and once their parent exits they belong to PID 1, out
 * of reach of a signal to the group. Two marks find them on Linux: every process the command starts
 * inherits an environment variable naming the command (read back from `/proc/PID/environ`), and the
 * tree of parent ids is followed from the shell while the command runs (for a process that clears
 * its environment). Stopping freezes them all first (SIGSTOP), so none can fork while it is killed.
 * Elsewhere the process group is what there is.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

/** The environment variable every process of a command inherits: its id. */
export const COMMAND_ID_VARIABLE = 'SPILLWAY_COMMAND_ID';

/** How often the tree of a running command is followed, in milliseconds. */
export const TREE_SCAN_INTERVAL_MS = 500;

/** How often the grace period checks whether everything has ended, in milliseconds. */
const GRACE_CHECK_MS = 50;

/** Rounds of freeze-and-kill before the stop gives up on processes that keep appearing. */
const STOP_ROUNDS = 8;

const PROC = '/proc';
const LINUX = process.platform === 'linux';

interface ProcessFacts {
  pid: number;
  parent: number;
  /** Start time in clock ticks since boot: with the pid, names one process (pids are reused). */
  start: string;
}

/** The pid, parent and start time of `/proc/PID/stat`, or `undefined` for a process gone. */
function factsOf(pid: number): ProcessFacts | undefined {
  try {
    const stat = readFileSync(`${PROC}/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const state = fields[0];
    if (state === 'Z' || state === 'X') return undefined;
    return { pid, parent: Number(fields[1]), start: fields[19] ?? '' };
  } catch {
    return undefined;
  }
}

function allPids(): number[] {
  try {
    return readdirSync(PROC)
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .filter((pid) => pid !== process.pid);
  } catch {
    return [];
  }
}

function carriesMark(pid: number, mark: string): boolean {
  try {
    return readFileSync(`${PROC}/${pid}/environ`, 'latin1').split('\0').includes(mark);
  } catch {
    return false;
  }
}

/** Sends `signal` to a process; false when it is gone. */
function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

/**
 * The processes of one command: its id for the environment, the tree followed while it runs, and
 * the stop that finds them all.
 *
 * @example
 * const processes = new CommandProcesses();
 * const child = spawn('sh', ['-c', command], { env: { ...process.env, ...processes.environment } });
 * processes.follow(child.pid);
 * await processes.stop();
 */
export class CommandProcesses {
  readonly id = randomUUID();
  /** Processes seen in the command's tree, by pid, with their start time. */
  readonly #known = new Map<number, string>();
  #timer: NodeJS.Timeout | undefined;

  /** The variable to start the command with. */
  get environment(): Record<string, string> {
    return { [COMMAND_ID_VARIABLE]: this.id };
  }

  /** Follows the tree under `root` (the shell) until {@link stop} or {@link release}. */
  follow(root: number | undefined): void {
    if (!LINUX || root === undefined) return;
    const facts = factsOf(root);
    if (facts) this.#known.set(root, facts.start);
    this.#timer = setInterval(() => this.#scan(), TREE_SCAN_INTERVAL_MS);
    this.#timer.unref();
  }

  /** Every live process of the command now: marked, or in the tree of one known. */
  #scan(): ProcessFacts[] {
    const mark = `${COMMAND_ID_VARIABLE}=${this.id}`;
    const all = allPids().flatMap((pid) => factsOf(pid) ?? []);
    const found = new Map<number, ProcessFacts>();
    for (const facts of all)
      if (this.#known.get(facts.pid) === facts.start || carriesMark(facts.pid, mark))
        found.set(facts.pid, facts);
    // Children of what was found, however deep, whatever their environment.
    let grew = true;
    while (grew) {
      grew = false;
      for (const facts of all)
        if (!found.has(facts.pid) && found.has(facts.parent)) {
          found.set(facts.pid, facts);
          grew = true;
        }
    }
    for (const facts of found.values()) this.#known.set(facts.pid, facts.start);
    return [...found.values()];
  }

  /** Whether any process of the command is still alive (Linux: found; elsewhere: unknown, false). */
  anyAlive(): boolean {
    return LINUX && this.#scan().length > 0;
  }

  /**
   * Stops every process of the command: SIGTERM to all and `graceMs` for them to end, then, round
   * after round, SIGSTOP to all (none forks any more) and SIGKILL, until none is found.
   */
  async stop({ graceMs }: { graceMs: number }): Promise<void> {
    this.release();
    if (!LINUX) return;
    const first = this.#scan();
    if (first.length === 0) return;
    for (const { pid } of first) signal(pid, 'SIGTERM');
    for (let waited = 0; waited < graceMs; waited += GRACE_CHECK_MS) {
      // A timer that holds the process: the caller awaits this, and nothing else may be left to
      // (the command's pipes are closed), so an unref'd one let Node exit with the wait unsettled.
      await new Promise((resolve) => setTimeout(resolve, GRACE_CHECK_MS));
      if (this.#scan().length === 0) return;
    }
    for (let round = 0; round < STOP_ROUNDS; round++) {
      const left = this.#scan();
      if (left.length === 0) return;
      for (const { pid } of left) signal(pid, 'SIGSTOP');
      for (const { pid } of this.#scan()) signal(pid, 'SIGKILL');
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Stops following the tree (the command's processes are left as they are). */
  release(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
