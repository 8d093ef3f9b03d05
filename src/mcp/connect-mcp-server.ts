/**
 * @module
 * One connected MCP server: its tools, attributed to it, and a way to call them.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { SpillwayError } from '../core/index.js';
import { importOptional } from '../optional/index.js';
import { type McpServerConfig, SERVER_NAME } from './mcp-server-config.js';
import { mcpResultText } from './mcp-tool-content.js';

/** How long connecting and listing one server's tools may take, in milliseconds. */
export const DEFAULT_LIST_TIMEOUT_MS = 3_000;

/** How long one tool call may take, in milliseconds (the SDK's own default). */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;

/** How much of a stdio server's stderr is kept for error messages. */
const STDERR_TAIL = 2_000;

/** A tool as the server lists it. */
export interface McpToolInfo {
  /** The server's own name for the tool. */
  name: string;
  description?: string;
  /** The tool's JSON Schema for its arguments. */
  inputSchema: unknown;
}

/** What one tool call returned. */
export interface McpCallResult {
  text: string;
  isError: boolean;
}

/** A connected server. */
export interface McpConnection {
  name: string;
  transport: 'stdio' | 'http';
  /** Every tool it listed, in its order. */
  tools: McpToolInfo[];
  /** Calls a tool by the server's own name. */
  callTool(options: {
    name: string;
    arguments?: Record<string, unknown>;
    signal?: AbortSignal;
    timeoutMs?: number;
  }): Promise<McpCallResult>;
  /** Closes the session (and ends a spawned process). */
  close(): Promise<void>;
}

/** The parts of the MCP SDK a connection uses, loaded on the first connection. */
async function loadMcpSdk() {
  const feature = 'connecting to an MCP server';
  const [client, stdio, http] = await Promise.all([
    importOptional<typeof import('@modelcontextprotocol/sdk/client/index.js')>({
      specifier: '@modelcontextprotocol/sdk/client/index.js',
      feature,
    }),
    importOptional<typeof import('@modelcontextprotocol/sdk/client/stdio.js')>({
      specifier: '@modelcontextprotocol/sdk/client/stdio.js',
      feature,
    }),
    importOptional<typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js')>({
      specifier: '@modelcontextprotocol/sdk/client/streamableHttp.js',
      feature,
    }),
  ]);
  return { ...client, ...stdio, ...http };
}

/** Options of {@link connectMcpServer}. */
export interface ConnectMcpServerOptions {
  server: McpServerConfig;
  /** Deadline for connecting and listing every page of tools (default {@link DEFAULT_LIST_TIMEOUT_MS}). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The client name and version the server sees. */
  clientInfo?: { name: string; version: string };
}

function fail(server: string, message: string, cause?: unknown): SpillwayError {
  return new SpillwayError('provider_error', `MCP server ${server}: ${message}`, {
    cause,
    data: { server },
    retryable: true,
  });
}

/**
 * Connects to one MCP server over stdio (`command`) or streamable HTTP (`url`) and lists its tools,
 * following pagination, all within `timeoutMs` (3 s by default). Rejects with a `provider_error`
 * naming the server (and, for stdio, the end of its stderr) when it cannot; a spawned process is
 * ended then.
 *
 * @example
 * const github = await connectMcpServer({ server: { name: 'github', command: 'github-mcp-server', args: ['stdio'] } });
 * github.tools.length; // 52
 * const { text } = await github.callTool({ name: 'get_issue', arguments: { owner: 'o', repo: 'r', issue_number: 7 } });
 * await github.close();
 */
export async function connectMcpServer({
  server,
  timeoutMs = DEFAULT_LIST_TIMEOUT_MS,
  signal,
  clientInfo = { name: 'spillway', version: '0.1.0' },
}: ConnectMcpServerOptions): Promise<McpConnection> {
  if (!SERVER_NAME.test(server.name))
    throw new SpillwayError(
      'invalid_config',
      `MCP server name ${JSON.stringify(server.name)} must be 1–32 letters, digits, "_" or "-"`,
    );
  const { Client, getDefaultEnvironment, StdioClientTransport, StreamableHTTPClientTransport } =
    await loadMcpSdk();
  let stderr = '';
  let transport: Transport;
  if ('url' in server) {
    transport = new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: server.headers ?? {} },
    });
  } else {
    const stdio = new StdioClientTransport({
      command: server.command,
      args: server.args ?? [],
      env: { ...getDefaultEnvironment(), ...server.env },
      ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
      stderr: 'pipe',
    });
    stdio.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-STDERR_TAIL);
    });
    transport = stdio;
  }
  const client = new Client(clientInfo, { capabilities: {} });
  const deadline = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([deadline, signal]) : deadline;
  const request = { signal: combined, timeout: timeoutMs };
  const tools: McpToolInfo[] = [];
  try {
    await client.connect(transport, request);
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, request);
      for (const tool of page.tools)
        tools.push({
          name: tool.name,
          ...(tool.description === undefined ? {} : { description: tool.description }),
          inputSchema: tool.inputSchema,
        });
      cursor = page.nextCursor;
    } while (cursor !== undefined);
  } catch (error) {
    await client.close().catch(() => {});
    const why = deadline.aborted
      ? `did not list its tools within ${timeoutMs} ms`
      : signal?.aborted
        ? 'connecting was aborted'
        : `could not connect or list its tools: ${(error as Error).message}`;
    const tail = stderr.trim() === '' ? '' : ` (stderr: ${stderr.trim().slice(-500)})`;
    throw fail(server.name, `${why}${tail}; check the server's command or URL, or disable it`, error);
  }
  return {
    name: server.name,
    transport: 'url' in server ? 'http' : 'stdio',
    tools,
    async callTool({
      name,
      arguments: args = {},
      signal: callSignal,
      timeoutMs: callTimeout = DEFAULT_CALL_TIMEOUT_MS,
    }) {
      try {
        const result = await client.callTool({ name, arguments: args }, undefined, {
          timeout: callTimeout,
          ...(callSignal ? { signal: callSignal } : {}),
        });
        return { text: mcpResultText(result as Record<string, unknown>), isError: result.isError === true };
      } catch (error) {
        throw fail(server.name, `calling ${name} failed: ${(error as Error).message}`, error);
      }
    },
    close: () => client.close(),
  };
}
