/**
 * The recovery scenario matrix: emulator profiles × scripts, each session run through four
 * strategies, over loopback HTTP against the emulators.
 *
 * - `none`: the full transcript every time, `max_tokens` the advertised output cap (the lean wiring).
 * - `naive_trim`: LangChain `trimMessages`-style: drop the oldest messages until characters / 4
 *   fits the advertised window minus `max_tokens`; no recovery.
 * - `threshold_compaction`: the common agent-CLI design: when characters / 4 passes 80% of the
 *   advertised window, summarize the older history with the model and keep the newest messages; an
 *   overflow from the provider ends the session.
 * - `spillway`: the tool loop with a ConversationDriver (limits from the advertised figures, as
 *   the others) and the recovery chain.
 *
 * Reported per strategy: sessions completed and stuck, provider calls, prompt tokens sent, summary
 * calls, window utilization (accepted prompt / enforced window) and prefix-cache retention (the share
 * of each request's serialized messages that is a byte prefix of the previous request's).
 */
import {
  type ChatRequest,
  ConversationDriver,
  contentText,
  type Message,
  SUMMARY_REQUEST_MARKER,
} from '../src/core/index.js';
import {
  codingAgentScript,
  type EmulatorOptions,
  type EmulatorProfileName,
  type FaultRule,
  type ScriptReply,
  startEmulator,
} from '../src/emulator/index.js';
import { type LoopTool, runToolLoop } from '../src/loop/index.js';
import { connectMcpServer, createToolset } from '../src/mcp/index.js';
import {
  createAnthropicClient,
  createOpenAICompatibleClient,
  type ModelClient,
} from '../src/providers/index.js';
import { codingTools } from '../test/support/coding-tools.js';

export const STRATEGIES = ['none', 'naive_trim', 'threshold_compaction', 'spillway'] as const;
type Strategy = (typeof STRATEGIES)[number];

interface Scenario {
  name: string;
  profile: EmulatorProfileName;
  emulator: Omit<EmulatorOptions, 'profile' | 'script'>;
  /** The window and output cap the client believes (what the server advertises or a user configured). */
  advertised: { window: number; outputCap: number };
  enforced: number;
  turns: number;
  toolSize: number;
  /** A user paste of this many words after turn 3. */
  paste?: number;
  /** Extra tool schemas (a large MCP setup). */
  schemaTools?: number;
  faults?: FaultRule[];
}

const SCENARIOS: Scenario[] = [
  {
    name: 'coding/vllm',
    profile: 'vllm',
    emulator: { contextLength: 16_384 },
    advertised: { window: 16_384, outputCap: 2_048 },
    enforced: 16_384,
    turns: 30,
    toolSize: 900,
  },
  {
    name: 'coding/anthropic',
    profile: 'anthropic',
    emulator: { contextLength: 24_000, outputCap: 4_096 },
    advertised: { window: 24_000, outputCap: 4_096 },
    enforced: 24_000,
    turns: 30,
    toolSize: 1_200,
  },
  {
    name: 'paste/openai',
    profile: 'openai',
    emulator: { contextLength: 16_000, outputCap: 2_048 },
    advertised: { window: 16_000, outputCap: 2_048 },
    enforced: 16_000,
    turns: 20,
    toolSize: 600,
    paste: 9_000,
  },
  {
    name: 'wrong-window/litellm-vllm',
    profile: 'litellm-vllm',
    emulator: { scale: 0.1 },
    advertised: { window: 9_600, outputCap: 9_600 },
    enforced: 21_000,
    turns: 25,
    toolSize: 800,
  },
  {
    name: 'tiny-nctx/llamacpp',
    profile: 'llamacpp',
    emulator: { contextLength: 4_096 },
    advertised: { window: 8_192, outputCap: 1_024 },
    enforced: 4_096,
    turns: 20,
    toolSize: 500,
  },
  {
    name: 'silent/ollama',
    profile: 'ollama',
    emulator: { contextLength: 4_096 },
    advertised: { window: 32_768, outputCap: 1_024 },
    enforced: 4_096,
    turns: 20,
    toolSize: 500,
  },
  {
    name: 'mcp-schemas/vllm',
    profile: 'vllm',
    emulator: { contextLength: 24_000 },
    advertised: { window: 24_000, outputCap: 2_048 },
    enforced: 24_000,
    turns: 20,
    toolSize: 600,
    schemaTools: 60,
  },
  {
    name: 'faults/openai',
    profile: 'openai',
    emulator: { contextLength: 16_000, outputCap: 2_048, seed: 3 },
    advertised: { window: 16_000, outputCap: 2_048 },
    enforced: 16_000,
    turns: 20,
    toolSize: 700,
    faults: [
      { kind: 'stream-cut', probability: 0.1 },
      { kind: 'rate-limit', probability: 0.1, retryAfter: 0 },
    ],
  },
];

const approximate = (messages: readonly Message[]): number =>
  messages.reduce((sum, message) => sum + Math.ceil(JSON.stringify(message).length / 4) + 3, 0);

/** Drops the oldest non-system messages until characters / 4 fits (no regard for tool-call pairing). */
function naiveTrim(request: ChatRequest, limit: number): ChatRequest {
  const system = request.messages.filter((message) => message.role === 'system');
  const rest = request.messages.filter((message) => message.role !== 'system');
  while (rest.length > 1 && approximate([...system, ...rest]) > limit) rest.shift();
  return { ...request, messages: [...system, ...rest] };
}

/** A client view that summarizes the older history once it passes 80% of the advertised window. */
function thresholdCompaction(
  inner: ModelClient,
  window: number,
  counters: { summaries: number },
): ModelClient {
  let summary: { covers: number; message: Message } | undefined;
  return {
    format: inner.format,
    baseUrl: inner.baseUrl,
    async send(request, options) {
      const messages = summary
        ? [request.messages[0] as Message, summary.message, ...request.messages.slice(summary.covers)]
        : request.messages;
      if (approximate(messages) > 0.8 * window) {
        const keepFrom = Math.max(2, request.messages.length - 6);
        const older = request.messages.slice(1, keepFrom);
        counters.summaries++;
        const reply = await inner.send(
          {
            ...request,
            tools: [],
            messages: [
              request.messages[0] as Message,
              {
                role: 'user',
                content: `Summarize this conversation for continuing the task:\n${older.map((message) => `${message.role}: ${contentText(message.content).slice(0, 2_000)}`).join('\n')}`,
              },
            ],
          },
          options,
        );
        summary = {
          covers: keepFrom,
          message: {
            role: 'user',
            content: `Summary of the earlier conversation: ${contentText(reply.message.content)}`,
          },
        };
      }
      const view = summary
        ? [request.messages[0] as Message, summary.message, ...request.messages.slice(summary.covers)]
        : request.messages;
      return inner.send({ ...request, messages: view }, options);
    },
  };
}

function wrap(inner: ModelClient, transform: (request: ChatRequest) => ChatRequest): ModelClient {
  return {
    format: inner.format,
    baseUrl: inner.baseUrl,
    send: (request, options) => inner.send(transform(request), options),
  };
}

function scriptFor(scenario: Scenario): { replies: ScriptReply[]; adaptToTools: boolean } {
  const script = codingAgentScript({ turns: scenario.turns, seed: 7 });
  return { ...script, adaptToTools: true };
}

const MCP_SERVER = new URL('../test/fixtures/mcp/tools-server.mjs', import.meta.url).pathname;

/**
 * The session's tools: the coding tools, plus a real stdio MCP server's tools for the schema-heavy
 * scenario. Spillway loads MCP schemas on demand (deferred loading); the other strategies send them
 * all, as clients without deferral do.
 */
async function toolsFor(
  scenario: Scenario,
  strategy: Strategy,
): Promise<{ tools: () => LoopTool[]; close: () => Promise<void> }> {
  const base = codingTools({ seed: 7, size: scenario.toolSize });
  if (!scenario.schemaTools) return { tools: () => base, close: async () => undefined };
  const server = await connectMcpServer({
    server: {
      name: 'github',
      command: process.execPath,
      args: [MCP_SERVER, '--name', 'github', '--domain', 'github', '--tools', String(scenario.schemaTools)],
    },
  });
  const toolset = createToolset({ builtins: base, servers: [server], deferred: strategy === 'spillway' });
  return { tools: () => toolset.tools(), close: () => server.close() };
}

function prefixRetention(bodies: unknown[]): number {
  const texts = bodies.map((body) => JSON.stringify((body as { messages?: unknown })?.messages ?? []));
  let retained = 0;
  let counted = 0;
  for (let index = 1; index < texts.length; index++) {
    const previous = texts[index - 1] as string;
    const current = texts[index] as string;
    // The previous request's messages minus the closing bracket are a prefix when nothing was rewritten.
    const limit = Math.min(previous.length - 1, current.length);
    let same = 0;
    while (same < limit && previous.charCodeAt(same) === current.charCodeAt(same)) same++;
    retained += same / current.length;
    counted++;
  }
  return counted === 0 ? 1 : retained / counted;
}

interface SessionOutcome {
  completed: boolean;
  /** Accepted requests whose prompt the server cut without saying so (Ollama). */
  silentlyTruncated: number;
  providerCalls: number;
  promptTokens: number;
  summaryCalls: number;
  utilization: number[];
  bodies: unknown[];
}

async function runSession(scenario: Scenario, strategy: Strategy): Promise<SessionOutcome> {
  const closers: Array<() => Promise<void>> = [];
  const emulator = await startEmulator({
    profile: scenario.profile,
    ...scenario.emulator,
    script: scriptFor(scenario),
    ...(scenario.faults ? { faults: scenario.faults } : {}),
  });
  try {
    const base: ModelClient =
      scenario.profile === 'anthropic'
        ? createAnthropicClient({
            baseUrl: emulator.url,
            retry: { maxRetries: 2, sleep: async () => undefined },
          })
        : createOpenAICompatibleClient({
            baseUrl: `${emulator.url}/v1`,
            retry: { maxRetries: 2, sleep: async () => undefined },
          });
    const counters = { summaries: 0 };
    const { window, outputCap } = scenario.advertised;
    const client =
      strategy === 'naive_trim'
        ? wrap(base, (request) => naiveTrim(request, window - outputCap))
        : strategy === 'threshold_compaction'
          ? thresholdCompaction(base, window, counters)
          : base;
    const messages: Message[] = [
      { role: 'system', content: 'You are a coding agent. Use the tools to inspect the repository.' },
      { role: 'user', content: 'Find out why the session tests fail, then explain the fix.' },
    ];
    const toolset = await toolsFor(scenario, strategy);
    closers.push(toolset.close);
    let turn = 0;
    const pasteTools: LoopTool[] | (() => LoopTool[]) = scenario.paste
      ? toolset.tools().map((tool) => ({
          ...tool,
          execute: async (args, context) => {
            turn++;
            const result = await tool.execute(args, context);
            // The paste arrives as a large tool output on the fourth turn.
            return turn === 4
              ? `${contentText(typeof result === 'string' ? result : '')}\n${'pasted log line with details '.repeat(Math.ceil((scenario.paste as number) / 5))}`
              : result;
          },
        }))
      : toolset.tools;
    const result = await runToolLoop({
      client,
      ...(strategy === 'spillway'
        ? {
            driver: new ConversationDriver({
              contextLength: window,
              outputCap,
              model: 'emulated',
              adoptsHistory: true,
            }),
          }
        : {}),
      ...(strategy === 'spillway' ? {} : { maxTokens: outputCap }),
      model: 'emulated',
      messages,
      tools: pasteTools,
      maxIterations: scenario.turns + 10,
      stream: scenario.profile !== 'localai',
    });
    const chat = emulator.requests.filter((record) => record.chatNumber !== undefined);
    const accepted = chat.filter((record) => record.reportedPromptTokens !== undefined);
    return {
      completed: result.reason === 'completed' && result.state.iterations >= scenario.turns,
      silentlyTruncated: accepted.filter(
        (record) => (record.reportedPromptTokens ?? 0) < (record.promptTokens ?? 0),
      ).length,
      providerCalls: chat.length,
      promptTokens: chat.reduce((sum, record) => sum + (record.promptTokens ?? 0), 0),
      summaryCalls:
        strategy === 'threshold_compaction'
          ? counters.summaries
          : chat.filter((record) => JSON.stringify(record.body ?? '').includes(SUMMARY_REQUEST_MARKER))
              .length,
      utilization: accepted.map((record) =>
        Math.min(1, (record.reportedPromptTokens ?? 0) / scenario.enforced),
      ),
      bodies: accepted.map((record) => record.body),
    };
  } finally {
    for (const close of closers) await close();
    await emulator.close();
  }
}

export interface StrategyResult {
  strategy: Strategy;
  sessions: number;
  completed: number;
  stuck: number;
  provider_calls: number;
  prompt_tokens_sent: number;
  summary_calls: number;
  silently_truncated_requests: number;
  window_utilization: number;
  prefix_retention: number;
  by_scenario: Record<string, boolean>;
}

/** One object per strategy; `by_scenario` names the scenarios and whether each session completed. */
export async function evalRecovery(): Promise<StrategyResult[]> {
  const strategies: StrategyResult[] = [];
  for (const strategy of STRATEGIES) {
    const outcomes: SessionOutcome[] = [];
    const byScenario: Record<string, boolean> = {};
    for (const scenario of SCENARIOS) {
      const outcome = await runSession(scenario, strategy);
      outcomes.push(outcome);
      byScenario[scenario.name] = outcome.completed;
    }
    const utilization = outcomes.flatMap((outcome) => outcome.utilization);
    const retention = outcomes.map((outcome) => prefixRetention(outcome.bodies));
    strategies.push({
      strategy,
      sessions: outcomes.length,
      completed: outcomes.filter((outcome) => outcome.completed).length,
      stuck: outcomes.filter((outcome) => !outcome.completed).length,
      provider_calls: outcomes.reduce((sum, outcome) => sum + outcome.providerCalls, 0),
      prompt_tokens_sent: outcomes.reduce((sum, outcome) => sum + outcome.promptTokens, 0),
      summary_calls: outcomes.reduce((sum, outcome) => sum + outcome.summaryCalls, 0),
      silently_truncated_requests: outcomes.reduce((sum, outcome) => sum + outcome.silentlyTruncated, 0),
      window_utilization: Number(
        (utilization.reduce((sum, value) => sum + value, 0) / Math.max(1, utilization.length)).toFixed(3),
      ),
      prefix_retention: Number(
        (retention.reduce((sum, value) => sum + value, 0) / Math.max(1, retention.length)).toFixed(3),
      ),
      by_scenario: byScenario,
    });
  }
  return strategies;
}
