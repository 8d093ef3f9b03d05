/**
 * @module
 * MCP server configuration: a command to spawn (stdio) or a URL (streamable HTTP), validated with
 * strict schemas so a typo fails with its path.
 */
import { z } from 'zod';
import { SpillwayError } from '../core/index.js';

/** A server Spillway spawns and talks to over stdio. */
export interface McpStdioServerConfig {
  /** The name tools are attributed to and qualified with (`github` → `github__create_issue`). */
  name: string;
  command: string;
  args?: string[];
  /** Added to the SDK's safe default environment (PATH, HOME…), never the whole parent environment. */
  env?: Record<string, string>;
  cwd?: string;
}

/** A server reached over MCP streamable HTTP. */
export interface McpHttpServerConfig {
  name: string;
  url: string;
  headers?: Record<string, string>;
}

/** One MCP server. */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/** Server names become tool-name prefixes: letters, digits, `_` and `-`, at most 32 characters. */
export const SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/;

const name = z.string().regex(SERVER_NAME, 'must be 1–32 letters, digits, "_" or "-"');
const stdio = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  type: z.literal('stdio').optional(),
});
const http = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string(), z.string()).optional(),
  type: z.enum(['http', 'streamable-http']).optional(),
});
const entry = z.union([stdio, http]);
const file = z.strictObject({ mcpServers: z.record(name, entry) });

/**
 * Reads the `mcpServers` object of an MCP configuration file (the format Claude Desktop, Claude Code
 * and Cursor use) into server configs, in the file's order. Fails with `invalid_config` naming the
 * path of the first wrong field.
 *
 * @example
 * parseMcpServers({ mcpServers: { github: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'] } } });
 * // [{ name: 'github', command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'] }]
 */
export function parseMcpServers(value: unknown): McpServerConfig[] {
  const parsed = file.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.join('.') ?? '';
    throw new SpillwayError(
      'invalid_config',
      `MCP configuration${path ? ` at ${path}` : ''}: ${issue?.message ?? 'invalid'}; expected {"mcpServers":{"name":{"command":…}|{"url":…}}}`,
      { data: { path } },
    );
  }
  return Object.entries(parsed.data.mcpServers).map(([serverName, config]) => {
    const { type: _type, ...rest } = config;
    return { name: serverName, ...rest };
  });
}
