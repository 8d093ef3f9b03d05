/**
 * @module
 * JSON as Python's `json.dumps(value, ensure_ascii=False)` writes it, which is what the `tojson`
 * filter of Hugging Face chat templates produces: `", "` between items and `": "` after keys, keys in
 * insertion order, non-ASCII characters left as they are. The emulators render tool schemas and tool
 * call arguments with it, so the prompt they count is the prompt a vLLM or llama.cpp server renders.
 */

/**
 * Serializes a JSON value with Python's default separators.
 *
 * @example
 * toPythonJson({ path: 'a.ts', lines: [1, 2] }); // '{"path": "a.ts", "lines": [1, 2]}'
 */
export function toPythonJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map((item) => toPythonJson(item)).join(', ')}]`;
  if (typeof value === 'object') {
    const entries: string[] = [];
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      if (item === undefined || typeof item === 'function') continue;
      entries.push(`${JSON.stringify(key)}: ${toPythonJson(item)}`);
    }
    return `{${entries.join(', ')}}`;
  }
  return 'null';
}

/**
 * A Python `repr` of a JSON value (`{'model': 'x', 'stream': True}`), the way FastAPI servers echo
 * request bodies inside validation errors.
 */
export function toPythonRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'string')
    return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (Array.isArray(value)) return `[${value.map((item) => toPythonRepr(item)).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).map(
      ([key, item]) => `${toPythonRepr(key)}: ${toPythonRepr(item)}`,
    );
    return `{${entries.join(', ')}}`;
  }
  return 'None';
}
