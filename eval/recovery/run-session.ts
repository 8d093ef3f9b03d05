/**
 * One session of the recovery matrix: a scripted coding agent (the emulator's script, tools answered
 * with seeded realistic output) run by the tool loop against an emulator over loopback HTTP, its
 * context handled by one strategy. Returns the chat requests the emulator recorded.
 */
import { ConversationDriver, contentText, type Message } from '../../src/core/index.js';
import { codingAgentScript, type EmulatorRequestRecord, startEmulator } from '../../src/emulator/index.js';
import { type LoopTool, runToolLoop } from '../../src/loop/index.js';
import { connectMcpServer, createToolset } from '../../src/mcp/index.js';
import {
  createAnthropicClient,
  createOpenAICompatibleClient,
  type ModelClient,
} from '../../src/providers/index.js';
import { codingTools } from '../../test/support/coding-tools.js';
import { headTailTools } from './baselines/head-tail-truncation.js';
import { langchainTrimClient } from './baselines/langchain-trim-client.js';
import { piCompactionClient } from './baselines/pi-compaction.js';
import { summarizationMiddlewareClient } from './baselines/summarization-middleware.js';
import { toolOutputPruneClient } from './baselines/tool-output-prune.js';
import type { Scenario } from './scenarios.js';

export const STRATEGIES = {
  none: 'none (the whole history)',
  langchain_trim: 'LangChain trimMessages',
  summarization_middleware: 'summarization middleware (LangChain)',
  pi_compaction: 'threshold compaction (pi)',
  tool_output_prune: 'old tool outputs cleared (opencode prune)',
  head_tail_truncation: 'head+tail tool-output truncation (Codex)',
  spillway: 'Spillway',
} as const;
export type Strategy = keyof typeof STRATEGIES;

/** What a session left: how the loop ended and what the server saw. */
export interface SessionRun {
  scenario: string;
  strategy: Strategy;
  /** The loop ended `completed` after every scripted turn. */
  loopCompleted: boolean;
  requests: EmulatorRequestRecord[];
}

const MCP_SERVER = new URL('../../test/fixtures/mcp/tools-server.mjs', import.meta.url).pathname;
const NO_WAIT = { maxRetries: 2, sleep: async () => undefined };

/**
 * The session's tools: the coding tools, plus a real stdio MCP server's tools for the schema-heavy
 * scenario (Spillway loads their schemas on demand; the others send them all, as clients without
 * deferral do), and the paste as a large tool output on the fourth turn.
 */
async function toolsFor(
  scenario: Scenario,
  strategy: Strategy,
): Promise<{ tools: () => LoopTool[]; close: () => Promise<void> }> {
  const base = withPaste(scenario, codingTools({ seed: 7, size: scenario.toolSize }));
  const wrap = (tools: LoopTool[]) => (strategy === 'head_tail_truncation' ? headTailTools(tools) : tools);
  if (!scenario.schemaTools) return { tools: () => wrap(base), close: async () => undefined };
  const server = await connectMcpServer({
    server: {
      name: 'github',
      command: process.execPath,
      args: [MCP_SERVER, '--name', 'github', '--domain', 'github', '--tools', String(scenario.schemaTools)],
    },
  });
  const toolset = createToolset({ builtins: base, servers: [server], deferred: strategy === 'spillway' });
  return { tools: () => wrap(toolset.tools()), close: () => server.close() };
}

function withPaste(scenario: Scenario, tools: LoopTool[]): LoopTool[] {
  if (!scenario.paste) return tools;
  const words = scenario.paste;
  let turn = 0;
  return tools.map((tool) => ({
    ...tool,
    execute: async (args, context) => {
      turn++;
      const result = await tool.execute(args, context);
      if (turn !== 4) return result;
      const text = typeof result === 'string' ? result : contentText(result);
      return `${text}\n${'pasted log line with details '.repeat(Math.ceil(words / 5))}`;
    },
  }));
}

function clientFor(strategy: Strategy, base: ModelClient, scenario: Scenario): ModelClient {
  const limits = scenario.advertised;
  switch (strategy) {
    case 'langchain_trim':
      return langchainTrimClient(base, limits);
    case 'summarization_middleware':
      return summarizationMiddlewareClient(base, limits);
    case 'pi_compaction':
      return piCompactionClient(base, limits);
    case 'tool_output_prune':
      return toolOutputPruneClient(base, limits);
    default:
      return base;
  }
}

export async function runSession(scenario: Scenario, strategy: Strategy): Promise<SessionRun> {
  const emulator = await startEmulator({
    profile: scenario.profile,
    ...scenario.emulator,
    script: { ...codingAgentScript({ turns: scenario.turns, seed: 7 }), adaptToTools: true },
    ...(scenario.faults ? { faults: scenario.faults } : {}),
  });
  const toolset = await toolsFor(scenario, strategy);
  try {
    const base: ModelClient =
      scenario.profile === 'anthropic'
        ? createAnthropicClient({ baseUrl: emulator.url, retry: NO_WAIT })
        : createOpenAICompatibleClient({ baseUrl: `${emulator.url}/v1`, retry: NO_WAIT });
    const { window, outputCap } = scenario.advertised;
    const messages: Message[] = [
      { role: 'system', content: 'You are a coding agent. Use the tools to inspect the repository.' },
      { role: 'user', content: 'Find out why the session tests fail, then explain the fix.' },
    ];
    const spillway = strategy === 'spillway';
    const result = await runToolLoop({
      client: clientFor(strategy, base, scenario),
      ...(spillway
        ? {
            driver: new ConversationDriver({
              contextLength: window,
              outputCap,
              model: 'emulated',
              adoptsHistory: true,
            }),
          }
        : { maxTokens: outputCap }),
      model: 'emulated',
      messages,
      tools: toolset.tools,
      maxIterations: scenario.turns + 10,
      stream: true,
    });
    return {
      scenario: scenario.name,
      strategy,
      loopCompleted: result.reason === 'completed' && result.state.iterations >= scenario.turns,
      requests: emulator.requests.filter((record) => record.chatNumber !== undefined),
    };
  } finally {
    await toolset.close();
    await emulator.close();
  }
}
