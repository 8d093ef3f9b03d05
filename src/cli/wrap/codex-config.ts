/**
 * @module
 * Codex's `config.toml`: where it is, and the top-level values wrap reads from it.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** A TOML string or bare value, unquoted (`"gpt-5"` → `gpt-5`). */
export function tomlText(value: string): string {
  const quoted = /^"((?:[^"\\]|\\.)*)"$|^'([^']*)'$/.exec(value.trim());
  return quoted ? (quoted[1] ?? quoted[2] ?? '') : value.trim();
}

/** A top-level `key = value` of a TOML file (before its first table), if set. */
export function tomlTopLevel(text: string, key: string): string | undefined {
  for (const line of text.split('\n')) {
    if (/^\s*\[/.test(line)) return undefined;
    const match = new RegExp(`^\\s*${key}\\s*=\\s*(.+?)\\s*(?:#.*)?$`).exec(line);
    if (match?.[1] !== undefined) return tomlText(match[1]);
  }
  return undefined;
}

/** Codex's `config.toml` under `CODEX_HOME` (default `~/.codex`), or `''`. */
export function codexConfigText(env: NodeJS.ProcessEnv): string {
  const home = env.CODEX_HOME ?? join(env.HOME ?? homedir(), '.codex');
  try {
    return readFileSync(join(home, 'config.toml'), 'utf8');
  } catch {
    return '';
  }
}
