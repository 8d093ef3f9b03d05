/**
 * @module
 * `spillway/mcp`: MCP servers' tools for the tool loop, with the server each came from (for the
 * tool-schema floor) and deferred loading.
 *
 * @example
 * import { connectMcpServers, createToolset } from 'spillway/mcp';
 */
export {
  connectMcpServer,
  connectMcpServers,
  createToolset,
  type McpServers,
  parseMcpServers,
} from './index.js';
