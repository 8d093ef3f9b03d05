/**
 * @module
 * The limit flags `spillway limits` and `spillway chat` share: `--context-length` / `--output-cap`
 * (used when nothing else states the figure) and `--hard-context-length` / `--hard-output-cap`
 * (over everything).
 */
import { SpillwayError } from '../../core/index.js';
import { integerFlag } from '../io.js';

/**
 * The soft and hard limits the flags give. A figure given both ways is a mistake worth naming.
 *
 * @example
 * limitFlags({ 'hard-context-length': '32768' }); // { config: {}, hard: { contextLength: 32768 } }
 */
export function limitFlags(values: Record<string, unknown>): {
  config: { contextLength?: number; outputCap?: number };
  hard: { contextLength?: number; outputCap?: number };
} {
  const read = (flag: string) => integerFlag(values[flag] as string | undefined, flag);
  const config = { contextLength: read('context-length'), outputCap: read('output-cap') };
  const hard = { contextLength: read('hard-context-length'), outputCap: read('hard-output-cap') };
  for (const [soft, strong, key] of [
    ['context-length', 'hard-context-length', 'contextLength'],
    ['output-cap', 'hard-output-cap', 'outputCap'],
  ] as const)
    if (config[key] !== undefined && hard[key] !== undefined)
      throw new SpillwayError('invalid_argument', `give --${soft} or --${strong}, not both`);
  const defined = (limits: typeof config) =>
    Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined));
  return { config: defined(config), hard: defined(hard) };
}
