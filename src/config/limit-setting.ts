/**
 * @module
 * How a configuration file gives a window or an output cap: a number, used when no server, gateway
 * or catalog states the figure, or `{ "value": N, "hard": true }`, a hard limit that wins over
 * everything, what servers state included.
 */
import { z } from 'zod';

const positive = z.int().positive();

/** `32768` or `{ "value": 32768, "hard": true }`. */
export const LIMIT_SETTING = z.union([
  positive,
  z.strictObject({
    value: positive,
    /** A hard limit: used over every other source. */
    hard: z.boolean().optional(),
  }),
]);

/** A limit as a file gives it. */
export type LimitSettingFile = z.infer<typeof LIMIT_SETTING>;

/** The keys of the object form, for messages about a typo in it. */
export const LIMIT_SETTING_KEYS = ['value', 'hard'] as const;

/**
 * A limit setting read: its value and whether it is hard.
 *
 * @example
 * readLimitSetting({ value: 32_768, hard: true }); // { value: 32768, hard: true }
 * readLimitSetting(32_768); // { value: 32768, hard: false }
 */
export function readLimitSetting(
  setting: LimitSettingFile | undefined,
): { value: number; hard: boolean } | undefined {
  if (setting === undefined) return undefined;
  return typeof setting === 'number'
    ? { value: setting, hard: false }
    : { value: setting.value, hard: setting.hard === true };
}

/** The soft and hard fields of a setting, in the library's spelling: `contextLength` or `hardContextLength`. */
export function limitFields(
  setting: LimitSettingFile | undefined,
  names: { soft: string; hard: string },
): Record<string, number> {
  const read = readLimitSetting(setting);
  if (read === undefined) return {};
  return { [read.hard ? names.hard : names.soft]: read.value };
}
