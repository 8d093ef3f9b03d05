import { describe, expect, it } from 'vitest';
import type { McpConnection } from './connect-mcp-server.js';
import {
  CATALOG_SOURCE,
  createToolset,
  type ExecutableTool,
  LOAD_TOOLS_NAME,
  summarize,
} from './create-toolset.js';
import { parseMcpServers } from './mcp-server-config.js';
import { mcpResultText } from './mcp-tool-content.js';
import { MAX_TOOL_NAME_LENGTH, qualifiedToolName } from './qualified-tool-name.js';

/** A connection that answers every call with the tool name and arguments. */
function fakeServer(name: string, tools: string[]): McpConnection & { calls: string[] } {
  const calls: string[] = [];
  return {
    name,
    transport: 'stdio',
    tools: tools.map((tool) => ({
      name: tool,
      description: `Runs ${tool}. Second sentence that the catalog leaves out.`,
      inputSchema: { type: 'object', properties: { id: { type: 'string', description: 'The record id.' } } },
    })),
    calls,
    async callTool({ name: tool, arguments: args }) {
      calls.push(tool);
      return tool === 'broken'
        ? { text: 'the backend is down', isError: true }
        : { text: JSON.stringify({ tool, args }), isError: false };
    },
    async close() {},
  };
}

const builtin: ExecutableTool = {
  name: 'read_file',
  description: 'Read a file.',
  parameters: { type: 'object', properties: { path: { type: 'string' } } },
  execute: (args) => `contents of ${(args as { path: string }).path}`,
};

describe('qualifiedToolName', () => {
  it('prefixes the server, replaces characters providers reject and stays within 64 characters', () => {
    expect(qualifiedToolName('github', 'create_issue')).toBe('github__create_issue');
    expect(qualifiedToolName('docs', 'page.get')).toBe('docs__page_get');
    const long = qualifiedToolName('server', 'x'.repeat(100));
    expect(long.length).toBe(MAX_TOOL_NAME_LENGTH);
    expect(qualifiedToolName('server', 'x'.repeat(101))).not.toBe(long);
  });
});

describe('summarize', () => {
  it('keeps the first sentence on one line, within the catalog limit', () => {
    expect(summarize('Create an issue.\nIt returns the issue.')).toBe('Create an issue.');
    expect(summarize(undefined)).toBe('');
    expect(summarize('word '.repeat(60)).length).toBeLessThanOrEqual(100);
  });
});

describe('parseMcpServers', () => {
  it('reads the mcpServers object of a configuration file, stdio and HTTP', () => {
    expect(
      parseMcpServers({
        mcpServers: {
          github: { command: 'github-mcp-server', args: ['stdio'], env: { GITHUB_TOKEN: 't' } },
          jira: { type: 'http', url: 'https://mcp.example/jira', headers: { authorization: 'Bearer x' } },
        },
      }),
    ).toEqual([
      { name: 'github', command: 'github-mcp-server', args: ['stdio'], env: { GITHUB_TOKEN: 't' } },
      { name: 'jira', url: 'https://mcp.example/jira', headers: { authorization: 'Bearer x' } },
    ]);
  });

  it('fails with the path of a wrong field', () => {
    expect(() => parseMcpServers({ mcpServers: { github: { comand: 'x' } } })).toThrow(/mcpServers\.github/);
    expect(() => parseMcpServers({ mcpServers: { 'bad name': { command: 'x' } } })).toThrow(
      /at mcpServers\.bad name/,
    );
    expect(() => parseMcpServers([])).toThrow(/mcpServers/);
  });
});

describe('mcpResultText', () => {
  it('keeps text, names other blocks, falls back to structured content', () => {
    expect(
      mcpResultText({
        content: [
          { type: 'text', text: 'ok' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'file:///a', text: 'inline' } },
          { type: 'resource_link', uri: 'file:///b' },
        ],
      }),
    ).toBe('ok\n[image image/png, 4 bytes of base64]\ninline\n[resource file:///b]');
    expect(mcpResultText({ content: [], structuredContent: { a: 1 } })).toBe('{"a":1}');
    expect(mcpResultText({ toolResult: { legacy: true } })).toBe('{"legacy":true}');
  });
});

describe('createToolset', () => {
  it('sends every schema without deferral, attributed to its server, after the built-ins', () => {
    const toolset = createToolset({ builtins: [builtin], servers: [fakeServer('tracker', ['a', 'b'])] });
    expect(toolset.definitions().map((tool) => [tool.name, tool.source])).toEqual([
      ['read_file', 'builtin'],
      ['tracker__a', 'tracker'],
      ['tracker__b', 'tracker'],
    ]);
    expect(toolset.definitions()).toBe(toolset.definitions());
  });

  it('defers MCP schemas behind load_tools, whose description is the catalog', () => {
    const toolset = createToolset({
      builtins: [builtin],
      servers: [fakeServer('tracker', ['create', 'list']), fakeServer('docs', ['get_page'])],
      deferred: { alwaysLoaded: ['docs__get_page'] },
    });
    const names = toolset.definitions().map((tool) => tool.name);
    expect(names).toEqual(['read_file', 'docs__get_page', LOAD_TOOLS_NAME]);
    const catalog = toolset.definitions().at(-1);
    expect(catalog?.source).toBe(CATALOG_SOURCE);
    expect(catalog?.description).toContain(
      'tracker:\n- tracker__create: Runs create.\n- tracker__list: Runs list.',
    );
    expect(catalog?.description).not.toContain('Second sentence');
  });

  it('loads by name, appends in load order, keeps loaded tools and the catalog text stable', async () => {
    const server = fakeServer('tracker', ['create', 'list', 'close']);
    const toolset = createToolset({ servers: [server], deferred: true });
    const before = toolset.definitions();
    const catalogText = before.at(-1)?.description;
    const answer = await toolset.execute(LOAD_TOOLS_NAME, { names: ['tracker__list', 'CREATE', 'nope'] });
    expect(answer).toMatch(/^Loaded: tracker__list, tracker__create\./m);
    expect(answer).toMatch(/^Unknown: nope\./m);
    const after = toolset.definitions();
    expect(after).not.toBe(before);
    expect(after.map((tool) => tool.name)).toEqual([LOAD_TOOLS_NAME, 'tracker__list', 'tracker__create']);
    expect(after[0]).toBe(before[0]);
    expect(after[0]?.description).toBe(catalogText);
    expect(await toolset.execute(LOAD_TOOLS_NAME, { names: ['tracker__list'] })).toMatch(/Already loaded/);
    await toolset.execute(LOAD_TOOLS_NAME, { names: ['tracker__close'] });
    // Everything is loaded; load_tools stays, so the list only ever grew at its end.
    expect(toolset.definitions().map((tool) => tool.name)).toEqual([
      LOAD_TOOLS_NAME,
      'tracker__list',
      'tracker__create',
      'tracker__close',
    ]);
    await expect(toolset.execute(LOAD_TOOLS_NAME, { names: ['nope'] })).rejects.toThrow(/^Unknown: nope/);
    const full = createToolset({ servers: [server] });
    await expect(full.execute(LOAD_TOOLS_NAME, { names: ['tracker__list'] })).rejects.toThrow(
      /no tool is called/,
    );
  });

  it('bounds how many schemas are loaded at once', async () => {
    const toolset = createToolset({
      servers: [fakeServer('s', ['a', 'b', 'c'])],
      deferred: { maxLoaded: 2 },
    });
    expect(toolset.load(['a', 'b', 'c'])).toEqual({
      loaded: ['s__a', 's__b'],
      already: [],
      unknown: [],
      refused: ['s__c'],
    });
    await expect(toolset.execute(LOAD_TOOLS_NAME, { names: ['s__c'] })).rejects.toThrow(
      /2 tools are loaded already/,
    );
  });

  it('routes calls to the server by its own tool name, reports tool errors, and loads a catalog tool called directly', async () => {
    const server = fakeServer('tracker', ['create', 'broken']);
    const toolset = createToolset({ builtins: [builtin], servers: [server], deferred: true });
    expect(await toolset.execute('read_file', { path: 'a.ts' })).toBe('contents of a.ts');
    expect(JSON.parse((await toolset.execute('tracker__create', { id: '7' })) as string)).toEqual({
      tool: 'create',
      args: { id: '7' },
    });
    expect(toolset.loaded).toEqual(['tracker__create']);
    await expect(toolset.execute('tracker__broken', {})).rejects.toThrow('the backend is down');
    expect(server.calls).toEqual(['create', 'broken']);
    await expect(toolset.execute('missing', {})).rejects.toThrow(/no tool is called "missing"/);
  });

  it('rejects an alwaysLoaded name no server lists, and keeps names unique across servers', () => {
    expect(() =>
      createToolset({ servers: [fakeServer('s', ['a'])], deferred: { alwaysLoaded: ['s__b'] } }),
    ).toThrow(/alwaysLoaded names "s__b"/);
    const clash = createToolset({
      builtins: [{ ...builtin, name: 's__a' }],
      servers: [fakeServer('s', ['a'])],
    });
    expect(clash.definitions().map((tool) => tool.name)).toEqual(['s__a', 's__a_2']);
  });
});
