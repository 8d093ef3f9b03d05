/**
 * @module
 * Several MCP servers at once; one that fails is reported, not fatal.
 */
import type { SpillwayError } from '../core/index.js';
import { type ConnectMcpServerOptions, connectMcpServer, type McpConnection } from './connect-mcp-server.js';
import type { McpServerConfig } from './mcp-server-config.js';

/** What {@link connectMcpServers} connected, and what it could not. */
export interface McpServers {
  /** Connected servers, in the order given. */
  connections: McpConnection[];
  /** Servers that failed, each with a `provider_error` naming it. */
  failures: { name: string; error: SpillwayError }[];
  /** Closes every connection. */
  close(): Promise<void>;
}

/**
 * Connects every server in parallel, each within its own deadline (3 s by default), so a slow or
 * broken server delays the start by at most that and never blocks the others.
 *
 * @example
 * const { connections, failures } = await connectMcpServers({ servers: parseMcpServers(config) });
 * for (const failure of failures) console.warn(failure.error.message);
 */
export async function connectMcpServers({
  servers,
  ...options
}: { servers: McpServerConfig[] } & Omit<ConnectMcpServerOptions, 'server'>): Promise<McpServers> {
  const settled = await Promise.allSettled(servers.map((server) => connectMcpServer({ server, ...options })));
  const connections: McpConnection[] = [];
  const failures: McpServers['failures'] = [];
  settled.forEach((outcome, index) => {
    if (outcome.status === 'fulfilled') connections.push(outcome.value);
    else failures.push({ name: servers[index]?.name ?? '', error: outcome.reason as SpillwayError });
  });
  return {
    connections,
    failures,
    close: async () => {
      await Promise.all(connections.map((connection) => connection.close().catch(() => {})));
    },
  };
}
