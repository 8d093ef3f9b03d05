/** Merging a patch into a user's JSON config without losing what the user set. */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `target` with `patch` merged in, objects key by key. */
export function merged(target: unknown, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch))
    out[key] = isRecord(value) ? merged(out[key], value) : value;
  return out;
}

/** The JSON of `text`; `{}` when there is none, `undefined` when it is not JSON. */
export function parsedConfig(text: string | undefined): unknown {
  if (text === undefined || text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
