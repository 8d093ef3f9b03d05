/**
 * @module
 * Tool names as the model sees them: `<server>__<tool>`, unique across servers and within the
 * 64-character, `[A-Za-z0-9_-]` limit OpenAI and Anthropic put on function names.
 */

/** The longest tool name providers accept (OpenAI and Anthropic: 64). */
export const MAX_TOOL_NAME_LENGTH = 64;

/** A short, stable hash of a string (FNV-1a, base 36), to keep shortened names unique. */
function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(36);
}

/**
 * The name the model calls a server's tool by.
 *
 * @example
 * qualifiedToolName('github', 'create_issue'); // 'github__create_issue'
 * qualifiedToolName('docs', 'page.get'); // 'docs__page_get'
 */
export function qualifiedToolName(server: string, tool: string): string {
  const name = `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_');
  if (name.length <= MAX_TOOL_NAME_LENGTH) return name;
  const hash = shortHash(`${server}\n${tool}`);
  return `${name.slice(0, MAX_TOOL_NAME_LENGTH - hash.length - 1)}_${hash}`;
}
