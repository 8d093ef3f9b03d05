/**
 * @module
 * The tools of a run: built-ins and MCP servers' tools, each attributed to its source, with
 * deferred loading for large MCP setups.
 */
import { type Content, SpillwayError, type ToolDefinition } from '../core/index.js';
import { DEFAULT_CALL_TIMEOUT_MS, type McpConnection } from './connect-mcp-server.js';
import { qualifiedToolName } from './qualified-tool-name.js';

/** A tool a loop can run (the shape of the tool loop's `LoopTool`). */
export interface ExecutableTool extends ToolDefinition {
  execute(args: unknown, context: { signal?: AbortSignal; callId: string }): Promise<Content> | Content;
}

/** The name of the tool that loads deferred schemas. */
export const LOAD_TOOLS_NAME = 'load_tools';

/** The source the `load_tools` catalog is attributed to. */
export const CATALOG_SOURCE = 'tool-catalog';

/** The source of built-ins that name none. */
export const BUILTIN_SOURCE = 'builtin';

/** The most MCP tools sent with full schemas at once, by default. */
export const DEFAULT_MAX_LOADED_TOOLS = 40;

/** How much of a description the catalog keeps: its first sentence, at most this many characters. */
export const CATALOG_DESCRIPTION_CHARS = 100;

/** Options of deferred tool loading. */
export interface DeferredLoadingOptions {
  /** MCP tools (model-facing names) sent with full schemas from the start. */
  alwaysLoaded?: string[];
  /** The most MCP tools with full schemas at once, always-loaded ones included (default 40). */
  maxLoaded?: number;
}

/** Options of {@link createToolset}. */
export interface CreateToolsetOptions {
  /** Tools of the application itself: always sent with full schemas, first. */
  builtins?: ExecutableTool[];
  /** Connected MCP servers, in the order their tools are listed. */
  servers?: McpConnection[];
  /** Send MCP tools' schemas only when the model asks for them (default: all schemas, always). */
  deferred?: boolean | DeferredLoadingOptions;
  /** Deadline of one MCP tool call (default 60 s). */
  callTimeoutMs?: number;
}

/** One MCP tool as the catalog lists it. */
export interface ToolCatalogEntry {
  /** The name the model calls it by (`server__tool`). */
  name: string;
  server: string;
  /** The server's own name for it. */
  tool: string;
  /** The first sentence of its description. */
  summary: string;
}

/** What a load did. */
export interface LoadResult {
  loaded: string[];
  already: string[];
  unknown: string[];
  /** Refused because {@link DeferredLoadingOptions.maxLoaded} tools are loaded. */
  refused: string[];
}

/** The tools of a run. */
export interface Toolset {
  /**
   * The tools for the next request: built-ins, always-loaded MCP tools, `load_tools` with the
   * catalog, then the tools the model loaded, in the order it loaded them. Loading only appends, so
   * the list's prefix stays byte-stable for provider prompt caches; the same array is returned until
   * it changes.
   */
  tools(): ExecutableTool[];
  /** {@link tools} without `execute`, as requests carry them. */
  definitions(): ToolDefinition[];
  /** Runs a tool by the name the model used. A catalog tool called before it was loaded is loaded. */
  execute(name: string, args: unknown, context?: { signal?: AbortSignal; callId?: string }): Promise<Content>;
  /** Brings deferred tools' schemas into the next request (what `load_tools` does). */
  load(names: readonly string[]): LoadResult;
  /** MCP tools sent with full schemas, in order. */
  readonly loaded: readonly string[];
  /** Every MCP tool, loaded or not. */
  readonly catalog: readonly ToolCatalogEntry[];
}

/** A description's first sentence, on one line. */
export function summarize(description: string | undefined): string {
  const line = (description ?? '').replace(/\s+/g, ' ').trim();
  const sentence = /^(.+?[.!?])(\s|$)/.exec(line)?.[1] ?? line;
  return sentence.length <= CATALOG_DESCRIPTION_CHARS
    ? sentence
    : `${sentence.slice(0, CATALOG_DESCRIPTION_CHARS - 1).trimEnd()}…`;
}

function catalogText(entries: readonly ToolCatalogEntry[]): string {
  const lines = [
    'Loads the full schemas of more tools. The tools below are available but listed by name only: call load_tools with the names you need, then call them from your next step on. Loaded tools stay available.',
  ];
  let server: string | undefined;
  for (const entry of entries) {
    if (entry.server !== server) {
      server = entry.server;
      lines.push('', `${server}:`);
    }
    lines.push(`- ${entry.name}: ${entry.summary}`);
  }
  return lines.join('\n');
}

/**
 * The tools of a run, from built-ins and connected MCP servers. Every MCP tool carries
 * `source: <server name>`, so the schema floor is attributed per server. With `deferred`, only
 * built-ins, `alwaysLoaded` tools and tools the model loaded carry full schemas; the others are
 * listed by name and first sentence in the description of a `load_tools` tool.
 *
 * @example
 * const { connections } = await connectMcpServers({ servers });
 * const toolset = createToolset({ builtins, servers: connections, deferred: { alwaysLoaded: ['github__get_issue'] } });
 * // each send: request.tools = toolset.definitions(); run calls with toolset.execute(name, args)
 */
export function createToolset({
  builtins = [],
  servers = [],
  deferred = false,
  callTimeoutMs = DEFAULT_CALL_TIMEOUT_MS,
}: CreateToolsetOptions = {}): Toolset {
  const options: DeferredLoadingOptions = deferred === true ? {} : deferred === false ? {} : deferred;
  const maxLoaded = options.maxLoaded ?? DEFAULT_MAX_LOADED_TOOLS;
  const builtinTools = builtins.map((tool) =>
    tool.source === undefined ? { ...tool, source: BUILTIN_SOURCE } : tool,
  );
  const taken = new Set(builtinTools.map((tool) => tool.name));
  const mcpTools = new Map<string, ExecutableTool>();
  const catalog: ToolCatalogEntry[] = [];
  for (const connection of servers) {
    for (const info of connection.tools) {
      let name = qualifiedToolName(connection.name, info.name);
      for (let suffix = 2; taken.has(name); suffix++)
        name = qualifiedToolName(connection.name, `${info.name}_${suffix}`);
      taken.add(name);
      const tool: ExecutableTool = {
        name,
        ...(info.description === undefined ? {} : { description: info.description }),
        parameters: info.inputSchema,
        source: connection.name,
        async execute(args, { signal } = { callId: '' }) {
          const result = await connection.callTool({
            name: info.name,
            arguments:
              typeof args === 'object' && args !== null && !Array.isArray(args)
                ? (args as Record<string, unknown>)
                : {},
            ...(signal ? { signal } : {}),
            timeoutMs: callTimeoutMs,
          });
          // The tool loop reports a thrown error to the model as a failed tool result.
          if (result.isError) throw new Error(result.text || `${name} failed`);
          return result.text;
        },
      };
      mcpTools.set(name, tool);
      catalog.push({ name, server: connection.name, tool: info.name, summary: summarize(info.description) });
    }
  }
  const loaded: string[] = [];
  if (deferred === false) loaded.push(...mcpTools.keys());
  else
    for (const name of options.alwaysLoaded ?? []) {
      if (!mcpTools.has(name))
        throw new SpillwayError(
          'invalid_config',
          `alwaysLoaded names ${JSON.stringify(name)}, which no connected MCP server lists; use a name like ${catalog[0]?.name ?? 'server__tool'}`,
        );
      if (!loaded.includes(name)) loaded.push(name);
    }
  const lowerNames = new Map<string, string[]>();
  for (const entry of catalog)
    for (const alias of [entry.name.toLowerCase(), entry.tool.toLowerCase()])
      lowerNames.set(alias, [...(lowerNames.get(alias) ?? []), entry.name]);

  // One definition object per tool for the whole run: estimates cached per object stay valid.
  const definitions = new Map<ExecutableTool, ToolDefinition>();
  const definitionOf = (tool: ExecutableTool): ToolDefinition => {
    let definition = definitions.get(tool);
    if (!definition) {
      const { name, description, parameters, source } = tool;
      definition = {
        name,
        ...(description === undefined ? {} : { description }),
        ...(parameters === undefined ? {} : { parameters }),
        ...(source === undefined ? {} : { source }),
      };
      definitions.set(tool, definition);
    }
    return definition;
  };
  // load_tools sits between the schemas sent from the start and those the model loads, and stays
  // once offered: every load then only appends to the list.
  const initiallyLoaded = loaded.length;
  const offersCatalog = deferred !== false && catalog.length > initiallyLoaded;
  let current: { tools: ExecutableTool[]; definitions: ToolDefinition[] } | undefined;
  const rebuild = () => {
    const schema = (name: string) => mcpTools.get(name) as ExecutableTool;
    const tools = [
      ...builtinTools,
      ...loaded.slice(0, initiallyLoaded).map(schema),
      ...(offersCatalog ? [loadTool] : []),
      ...loaded.slice(initiallyLoaded).map(schema),
    ];
    current = { tools, definitions: tools.map(definitionOf) };
    return current;
  };

  const resolve = (requested: string): string | undefined => {
    if (mcpTools.has(requested)) return requested;
    const matches = lowerNames.get(requested.trim().toLowerCase()) ?? [];
    return matches.length === 1 ? matches[0] : undefined;
  };

  const load = (names: readonly string[]): LoadResult => {
    const result: LoadResult = { loaded: [], already: [], unknown: [], refused: [] };
    for (const requested of names) {
      const name = typeof requested === 'string' ? resolve(requested) : undefined;
      if (name === undefined) result.unknown.push(String(requested));
      else if (loaded.includes(name)) result.already.push(name);
      else if (loaded.length >= maxLoaded) result.refused.push(name);
      else {
        loaded.push(name);
        result.loaded.push(name);
      }
    }
    if (result.loaded.length > 0) current = undefined;
    return result;
  };

  // The catalog lists every MCP tool, loaded or not, so its text never changes during a run.
  const loadTool: ExecutableTool = {
    name: LOAD_TOOLS_NAME,
    description: catalogText(catalog),
    parameters: {
      type: 'object',
      properties: {
        names: {
          type: 'array',
          items: { type: 'string' },
          minItems: 1,
          description: 'Names of tools from the list above, exactly as written there.',
        },
      },
      required: ['names'],
      additionalProperties: false,
    },
    source: CATALOG_SOURCE,
    execute(args) {
      const names = (args as { names?: unknown } | null)?.names;
      if (!Array.isArray(names) || names.length === 0)
        throw new Error('load_tools needs {"names": [...]}: the names of tools from its description');
      const result = load(names as string[]);
      const lines: string[] = [];
      if (result.loaded.length > 0)
        lines.push(`Loaded: ${result.loaded.join(', ')}. Call them from your next step on.`);
      if (result.already.length > 0) lines.push(`Already loaded: ${result.already.join(', ')}.`);
      if (result.refused.length > 0)
        lines.push(
          `Not loaded, ${maxLoaded} tools are loaded already (the most at once): ${result.refused.join(', ')}. Work with the loaded tools.`,
        );
      if (result.unknown.length > 0)
        lines.push(
          `Unknown: ${result.unknown.join(', ')}. Use names exactly as the load_tools description lists them.`,
        );
      if (result.loaded.length === 0 && result.already.length === 0) throw new Error(lines.join('\n'));
      return lines.join('\n');
    },
  };

  return {
    tools: () => (current ?? rebuild()).tools,
    definitions: () => (current ?? rebuild()).definitions,
    async execute(name, args, context = {}) {
      const tool =
        name === LOAD_TOOLS_NAME && offersCatalog
          ? loadTool
          : (builtinTools.find((entry) => entry.name === name) ?? mcpTools.get(name));
      if (!tool)
        throw new SpillwayError(
          'invalid_argument',
          `no tool is called ${JSON.stringify(name)}; the model called a tool it was not given`,
        );
      // A catalog tool called by name before being loaded: run it, and send its schema from now on.
      if (mcpTools.has(name) && !loaded.includes(name)) load([name]);
      return tool.execute(args, {
        callId: context.callId ?? '',
        ...(context.signal ? { signal: context.signal } : {}),
      });
    },
    load,
    get loaded() {
      return loaded.slice();
    },
    catalog,
  };
}
