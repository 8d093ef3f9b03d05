/**
 * @module
 * MCP servers as tools: connect over stdio or streamable HTTP (`@modelcontextprotocol/sdk`), list
 * their tools within a deadline, call them, attribute their schema cost to the server, and load
 * schemas on demand when a large setup would crowd the window.
 *
 * @example
 * import { connectMcpServers, createToolset, parseMcpServers } from 'spillway/mcp';
 * const { connections, failures } = await connectMcpServers({ servers: parseMcpServers(config) });
 * const toolset = createToolset({ builtins, servers: connections, deferred: true });
 * const request = { ...base, tools: toolset.definitions() };
 */
export {
  type ConnectMcpServerOptions,
  connectMcpServer,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_LIST_TIMEOUT_MS,
  type McpCallResult,
  type McpConnection,
  type McpToolInfo,
} from './connect-mcp-server.js';
export { connectMcpServers, type McpServers } from './connect-mcp-servers.js';
export {
  BUILTIN_SOURCE,
  CATALOG_DESCRIPTION_CHARS,
  CATALOG_SOURCE,
  type CreateToolsetOptions,
  createToolset,
  DEFAULT_MAX_LOADED_TOOLS,
  type DeferredLoadingOptions,
  type ExecutableTool,
  LOAD_TOOLS_NAME,
  type LoadResult,
  summarize,
  type ToolCatalogEntry,
  type Toolset,
} from './create-toolset.js';
export {
  type McpHttpServerConfig,
  type McpServerConfig,
  type McpStdioServerConfig,
  parseMcpServers,
  SERVER_NAME,
} from './mcp-server-config.js';
export { mcpResultText } from './mcp-tool-content.js';
export { MAX_TOOL_NAME_LENGTH, qualifiedToolName } from './qualified-tool-name.js';
