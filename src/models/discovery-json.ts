/**
 * @module
 * Small readers for the JSON bodies discovery probes parse: servers answer with loosely typed
 * documents, so every field is checked before it is believed.
 */

/** A JSON object. */
export type Json = Record<string, unknown>;

/** Whether a value is a JSON object (not an array, not null). */
export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A positive integer, or `undefined`. */
export function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** The smallest of the known values. */
export function smallest(...values: (number | undefined)[]): number | undefined {
  const known = values.filter((value): value is number => value !== undefined);
  return known.length === 0 ? undefined : Math.min(...known);
}

/** The objects of a `{ data: [...] }` list. */
export function list(body: unknown, key = 'data'): Json[] {
  return isObject(body) && Array.isArray(body[key]) ? (body[key] as unknown[]).filter(isObject) : [];
}

/** The entry of a model list that is `model`: same id, same id ignoring case, or the only entry. */
export function pick<T>(
  entries: T[],
  model: string | undefined,
  ids: (entry: T) => unknown[],
): T | undefined {
  const wanted = model?.toLowerCase();
  if (wanted !== undefined) {
    const exact = entries.find((entry) => ids(entry).includes(model));
    if (exact) return exact;
    const loose = entries.find((entry) =>
      ids(entry).some((id) => typeof id === 'string' && id.toLowerCase() === wanted),
    );
    if (loose) return loose;
  }
  return entries.length === 1 ? entries[0] : undefined;
}
