/**
 * What every result file records about its run: the command that wrote it, when, and on what
 * machine (with the load at the start: on a shared machine, other jobs slow every figure down).
 */
import { cpus, loadavg, totalmem } from 'node:os';

export function runStamp(command: string) {
  const cpu = cpus();
  return {
    node: process.version,
    date: new Date().toISOString(),
    command,
    machine: {
      cpu: cpu[0]?.model.trim() ?? 'unknown',
      cores: cpu.length,
      memory_gib: Math.round(totalmem() / 2 ** 30),
      platform: `${process.platform}-${process.arch}`,
      load_average: Number((loadavg()[0] ?? 0).toFixed(2)),
    },
  };
}
