/**
 * Formatting shared by the figure renderers: numbers as the README prints them, and the line under
 * every generated figure saying where it comes from (file, command, machine, date).
 */

/** A result file's stamp: written by bench/run.ts and eval/run.ts (older files may lack parts). */
export interface ResultStamp {
  node?: string;
  date?: string;
  command?: string;
  /** An object from bench/stamp.ts, or one phrase (older writers). */
  machine?:
    | string
    | {
        cpu?: string;
        cores?: number;
        memory_gib?: number;
        memoryGiB?: number;
        platform?: string;
        load_average?: number;
      };
}

/** `1234567.8` → `1,234,568` (or with `digits` decimals). */
export function count(value: number, digits = 0): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** A number with `digits` decimals (trailing zeros kept). */
export function fixed(value: number, digits = 2): string {
  return value.toFixed(digits);
}

/** A share as a percentage: `0.512` → `51.2%`. */
export function percent(value: number, digits = 1): string {
  return `${(100 * value).toFixed(digits)}%`;
}

/** A ratio with a × sign: `12.345` → `12×` (below 10: one decimal). */
export function times(value: number): string {
  return value >= 10 ? `${count(value)}×` : `${value.toFixed(1)}×`;
}

/** The machine, in one phrase. */
export function machineOf(stamp: ResultStamp): string {
  const machine = stamp.machine;
  if (!machine) return 'machine not recorded';
  if (typeof machine === 'string')
    return stamp.node === undefined ? machine : `${machine}, Node ${stamp.node}`;
  const memory = machine.memory_gib ?? machine.memoryGiB;
  const parts = [
    machine.cpu,
    machine.cores === undefined ? undefined : `${machine.cores} cores`,
    memory === undefined ? undefined : `${memory} GiB`,
    machine.platform,
    stamp.node === undefined ? undefined : `Node ${stamp.node}`,
    machine.load_average === undefined ? undefined : `load ${machine.load_average.toFixed(1)} at the start`,
  ];
  return parts.filter(Boolean).join(', ');
}

/** The line under a figure: the files it comes from, the command that wrote each, machine and date. */
export function sourceLine(sources: ReadonlyArray<{ file: string; stamp: ResultStamp }>): string {
  const described = sources.map(({ file, stamp }) => {
    const date = stamp.date ? stamp.date.slice(0, 10) : 'date not recorded';
    const command = stamp.command ? `\`${stamp.command}\`` : 'command not recorded';
    return `\`bench/results/${file}\` (${command}, ${date}; ${machineOf(stamp)})`;
  });
  return `<sub>Generated from ${described.join(' and ')} by \`npm run readme:figures\`.</sub>`;
}

/** A Markdown table. */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}
