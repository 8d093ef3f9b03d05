/**
 * The tool-schema floor of a large MCP setup with and without deferred loading: five real stdio MCP
 * servers (the test fixture, 30 tools each, 150 in all) plus three built-ins, measured as Spillway
 * estimates it (what the budget deducts) and as the emulators render and count it (the Qwen 2.5
 * template, o200k tokens: the tool block of the prompt, with and without the tools). Also the
 * 300-tool single server of the schema-floor scenario.
 *
 *   npx tsx bench/schemas.ts         (or, once registered, npm run bench -- schemas)
 */
import { fileURLToPath } from 'node:url';
import { createEstimator, measureSchemaFloor, type ToolDefinition } from '../src/core/index.js';
import { countPromptTokens } from '../src/emulator/index.js';
import { connectMcpServers, createToolset, type McpServerConfig } from '../src/mcp/index.js';
import { codingTools } from '../test/support/coding-tools.js';

const serverScript = fileURLToPath(new URL('../test/fixtures/mcp/tools-server.mjs', import.meta.url));
const DOMAINS = ['github', 'tracker', 'docs', 'chat', 'cloud'] as const;

function server(name: string, domain: string, tools: number): McpServerConfig {
  return {
    name,
    command: process.execPath,
    args: [serverScript, '--name', name, '--domain', domain, '--tools', String(tools)],
  };
}

/** Tokens the tools add to a rendered prompt (Qwen 2.5 template, o200k), as the emulators count them. */
function renderedToolTokens(tools: readonly ToolDefinition[]): number {
  const messages = [
    { role: 'system', content: 'You are an agent.' },
    { role: 'user', content: 'Hello.' },
  ];
  const body = (withTools: boolean) => ({
    model: 'bench',
    messages,
    ...(withTools
      ? {
          tools: tools.map((tool) => ({
            type: 'function',
            function: { name: tool.name, description: tool.description, parameters: tool.parameters },
          })),
        }
      : {}),
  });
  return (
    countPromptTokens(body(true), { format: 'openai' }).tokens -
    countPromptTokens(body(false), { format: 'openai' }).tokens
  );
}

function measure(label: string, tools: readonly ToolDefinition[]) {
  const floor = measureSchemaFloor({ tools, counter: createEstimator() });
  return {
    setup: label,
    tools_sent: tools.length,
    estimated_tokens: floor.toolTokens,
    rendered_o200k_tokens: renderedToolTokens(tools),
    by_source: floor.sources.map((source) => `${source.source} ${source.tokens} (${source.tools})`),
  };
}

/** The floor figures, deferred against full, for `npm run bench`. */
export async function benchSchemas() {
  const builtins = codingTools();
  const five = await connectMcpServers({ servers: DOMAINS.map((domain) => server(domain, domain, 30)) });
  const one = await connectMcpServers({ servers: [server('tracker', 'tracker', 300)] });
  try {
    if (five.failures.length > 0 || one.failures.length > 0)
      throw new Error([...five.failures, ...one.failures].map((failure) => failure.error.message).join('; '));
    const full = createToolset({ builtins, servers: five.connections });
    const deferred = createToolset({ builtins, servers: five.connections, deferred: true });
    const initial = measure('5 servers, 150 tools, deferred', deferred.definitions());
    const load = deferred.load([
      'github__create_issue',
      'github__get_pull_request',
      'tracker__get_ticket',
      'docs__list_page',
      'chat__create_message',
    ]);
    if (load.loaded.length !== 5) throw new Error(`expected 5 tools to load, got ${JSON.stringify(load)}`);
    const rows = [
      measure('5 servers, 150 tools, full schemas', full.definitions()),
      initial,
      measure('5 servers, 150 tools, deferred, 5 loaded', deferred.definitions()),
      measure(
        '1 server, 300 tools, full schemas',
        createToolset({ builtins, servers: one.connections }).definitions(),
      ),
      measure(
        '1 server, 300 tools, deferred',
        createToolset({ builtins, servers: one.connections, deferred: true }).definitions(),
      ),
    ];
    const [fullRow, deferredRow] = rows as [(typeof rows)[0], (typeof rows)[0]];
    return {
      floors: rows,
      deferred_over_full: {
        estimated: Number((deferredRow.estimated_tokens / fullRow.estimated_tokens).toFixed(3)),
        rendered_o200k: Number(
          (deferredRow.rendered_o200k_tokens / fullRow.rendered_o200k_tokens).toFixed(3),
        ),
      },
    };
  } finally {
    await Promise.all([five.close(), one.close()]);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(JSON.stringify(await benchSchemas(), null, 2));
}
