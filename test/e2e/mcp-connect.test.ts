import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { SpillwayError } from '../../src/core/index.js';
import {
  connectMcpServer,
  connectMcpServers,
  createToolset,
  type McpConnection,
} from '../../src/mcp/index.js';
import { startHttpToolsServer } from '../fixtures/mcp/http-server.mjs';

const serverScript = fileURLToPath(new URL('../fixtures/mcp/tools-server.mjs', import.meta.url));
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((entry) => entry.close()));
});

function stdio(name: string, args: string[] = []) {
  return { name, command: process.execPath, args: [serverScript, '--name', name, ...args] };
}

describe('MCP servers over stdio', () => {
  it('lists every page of a 300-tool server, attributes the tools, and calls them', async () => {
    const tracker = await connectMcpServer({ server: stdio('tracker', ['--tools', '300']) });
    open.push(tracker);
    expect(tracker.transport).toBe('stdio');
    expect(tracker.tools).toHaveLength(300);
    expect(new Set(tracker.tools.map((tool) => tool.name)).size).toBe(300);
    expect(tracker.tools[0]).toMatchObject({ name: 'create_ticket', inputSchema: { type: 'object' } });
    const toolset = createToolset({ servers: [tracker] });
    expect(toolset.definitions().every((tool) => tool.source === 'tracker')).toBe(true);
    const reply = await toolset.execute('tracker__get_ticket', { project_key: 'PLAT', ticket_id: 'PLAT-7' });
    expect(JSON.parse(reply as string)).toMatchObject({
      ok: true,
      server: 'tracker',
      tool: 'get_ticket',
      arguments: { project_key: 'PLAT', ticket_id: 'PLAT-7' },
    });
    await expect(toolset.execute('tracker__delete_ticket', { ticket_id: 'x' })).rejects.toThrow(
      'confirm must be true to delete',
    );
  });

  it('gives up on a server that does not list its tools within the deadline, naming it', async () => {
    const error = await connectMcpServer({ server: stdio('slow', ['--hang-list']), timeoutMs: 400 }).catch(
      (caught: unknown) => caught,
    );
    expect(SpillwayError.isInstance(error)).toBe(true);
    expect((error as SpillwayError).code).toBe('provider_error');
    expect((error as Error).message).toMatch(/^MCP server slow: did not list its tools within 400 ms/);
  });

  it('reports a server that cannot start among others that can, without failing them', async () => {
    const result = await connectMcpServers({
      servers: [
        stdio('docs', ['--domain', 'docs', '--tools', '8']),
        { name: 'ghost', command: '/nonexistent/mcp-server' },
      ],
    });
    open.push(result);
    expect(result.connections.map((connection) => connection.name)).toEqual(['docs']);
    expect(result.failures).toHaveLength(1);
    expect(result.failures[0]?.name).toBe('ghost');
    expect(result.failures[0]?.error.message).toMatch(/^MCP server ghost: could not connect/);
  });
});

describe('MCP servers over streamable HTTP', () => {
  it('lists and calls tools the same way', async () => {
    const http = await startHttpToolsServer({ name: 'crm', domain: 'crm', tools: 12 });
    open.push(http);
    const crm: McpConnection = await connectMcpServer({ server: { name: 'crm', url: http.url } });
    open.push(crm);
    expect(crm.transport).toBe('http');
    expect(crm.tools.map((tool) => tool.name).slice(0, 3)).toEqual([
      'create_contact',
      'create_company',
      'create_deal',
    ]);
    const result = await crm.callTool({
      name: 'get_deal',
      arguments: { pipeline_id: 'default', deal_id: 'd-1' },
    });
    expect(result.isError).toBe(false);
    expect(JSON.parse(result.text)).toMatchObject({ server: 'crm', tool: 'get_deal' });
  });
});
