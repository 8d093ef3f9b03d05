/**
 * @module
 * `spillway demo`: an emulated backend in-process, and the same scripted coding session run twice
 * against it, once through a plain client and once through Spillway.
 */
import { ConversationDriver, computeBudget, SpillwayError, sendPolicy } from '../core/index.js';
import {
  ANTHROPIC_DEFAULTS,
  type EmulatorProfileName,
  GEMINI_DEFAULTS,
  LITELLM_VLLM_DEFAULTS,
  LLAMACPP_DEFAULTS,
  OLLAMA_DEFAULTS,
  OPENAI_DEFAULTS,
  startEmulator,
  VLLM_DEFAULTS,
} from '../emulator/index.js';
import { type LimitSource, type ResolvedLimits, resolveLimits } from '../models/index.js';
import { createAnthropicClient, createOpenAICompatibleClient, type ModelClient } from '../providers/index.js';
import { demoSession } from './demo-session.js';
import { type DemoRequest, type DemoRun, runDemoSession } from './run-demo-session.js';
import { percent } from './share-percent.js';

/** The default backend: LiteLLM in front of vLLM at 1:10 scale (9,600 / 9,600 advertised, 21,000 enforced). */
export const DEMO_DEFAULT_PROFILE: EmulatorProfileName = 'litellm-vllm';
export const DEMO_DEFAULT_SCALE = 0.1;
export const DEMO_DEFAULT_TURNS = 30;

/** Each profile's model and the window its server enforces (`litellm-vllm`: scaled). */
function backendOf(profile: EmulatorProfileName, scale: number): { model: string; window: number } {
  switch (profile) {
    case 'litellm-vllm':
      return {
        model: LITELLM_VLLM_DEFAULTS.model,
        window: Math.round(LITELLM_VLLM_DEFAULTS.enforced * scale),
      };
    case 'vllm':
      return { model: VLLM_DEFAULTS.model, window: VLLM_DEFAULTS.contextLength };
    case 'llamacpp':
    case 'localai':
      return { model: LLAMACPP_DEFAULTS.model, window: LLAMACPP_DEFAULTS.contextLength };
    case 'ollama':
      return { model: OLLAMA_DEFAULTS.model, window: OLLAMA_DEFAULTS.contextLength };
    case 'anthropic':
      return { model: ANTHROPIC_DEFAULTS.model, window: ANTHROPIC_DEFAULTS.contextLength };
    case 'openai':
      return { model: OPENAI_DEFAULTS.model, window: OPENAI_DEFAULTS.contextLength };
    case 'gemini':
      return { model: GEMINI_DEFAULTS.model, window: GEMINI_DEFAULTS.contextLength };
  }
}

/** Options of {@link runDemo}. */
export interface RunDemoOptions {
  profile?: EmulatorProfileName;
  /** Assistant turns of the session (the last one the answer). */
  turns?: number;
  /** `litellm-vllm`: the scale of its limits. */
  scale?: number;
  seed?: number;
  /** One line per finished turn of either run, as it happens. */
  onProgress?: (line: string) => void;
}

/** A limit Spillway learned during the run, from a rejection that stated it. */
export interface DemoLearned {
  figure: 'context_length';
  value: number;
  source: LimitSource;
  /** The turn whose request was rejected. */
  turn: number;
}

/** What the demo found. */
export interface DemoResult {
  profile: EmulatorProfileName;
  turns: number;
  scale: number;
  model: string;
  /** What the backend advertises (discovery without the probe), with the sources. */
  advertised: ResolvedLimits;
  /** The limits Spillway started from (discovery and the zero-cost probe), with every source's figure. */
  limits: ResolvedLimits;
  /** Windows Spillway learned from rejections during its run. */
  learned: DemoLearned[];
  /** The window the backend really enforces. */
  realWindow: number;
  /** The reserve Spillway fitted with (undefined: the output cap). */
  reserve?: number;
  runs: { plain: DemoRun; spillway: DemoRun };
}

const count = (value: number | undefined): string =>
  value === undefined ? '-' : value.toLocaleString('en-US');

/** One progress line: the turn's requests, each prompt + max_tokens and how it went. */
export function progressLine({
  run,
  turn,
  turns,
  requests,
  pruned,
  notes,
}: {
  run: string;
  turn: number;
  turns: number;
  requests: DemoRequest[];
  pruned: number;
  notes: string[];
}): string {
  const parts = requests.map((request) => {
    const sent = `prompt ${count(request.promptTokens).padStart(6)} + max_tokens ${count(request.maxTokens).padStart(5)}`;
    if (request.accepted && request.keptTokens !== undefined) {
      const lost = (request.promptTokens - request.keptTokens) / request.promptTokens;
      return `${sent} → ok, but the server kept ${count(request.keptTokens)} (${percent(lost)} dropped silently)`;
    }
    if (request.accepted) return `${sent} → ok`;
    const window = request.window === undefined ? '' : `, window ${count(request.window)}`;
    return `${sent} → rejected (${request.overflow ?? 'error'} overflow${window})`;
  });
  const extra = [...(pruned > 0 ? [`pruned ${pruned} turn${pruned === 1 ? '' : 's'}`] : []), ...notes];
  return `${run.padEnd(8)} turn ${String(turn).padStart(2)}/${turns}  ${parts.join(' · ') || 'no request'}${extra.length > 0 ? `  [${extra.join('; ')}]` : ''}`;
}

/** The windows rejections stated during a run, each once, in the order they came. */
function learnedDuring(run: DemoRun): DemoLearned[] {
  const learned: DemoLearned[] = [];
  for (const request of run.requests)
    if (!request.accepted && request.window !== undefined && learned.at(-1)?.value !== request.window)
      learned.push({ figure: 'context_length', value: request.window, source: 'stated', turn: request.turn });
  return learned;
}

/** The OpenAI-compatible base URL of a profile's emulator: its chat path without `/chat/completions`. */
function openAIBase(profile: EmulatorProfileName, url: string): string {
  return profile === 'gemini' ? `${url}/v1beta/openai` : `${url}/v1`;
}

function clientFor(format: 'openai' | 'anthropic', url: string): ModelClient {
  return format === 'anthropic'
    ? createAnthropicClient({ baseUrl: url })
    : createOpenAICompatibleClient({ baseUrl: url });
}

/**
 * Starts the emulator, discovers what it advertises, and runs the session plain and through
 * Spillway, reporting each turn through `onProgress`. No network beyond loopback, no API key.
 *
 * @example
 * const result = await runDemo({ onProgress: console.log });
 * result.runs.plain.stuck; // true: the advertised cap makes a prompt past 11,400 tokens impossible
 */
export async function runDemo({
  profile = DEMO_DEFAULT_PROFILE,
  turns = DEMO_DEFAULT_TURNS,
  scale = DEMO_DEFAULT_SCALE,
  seed = 0,
  onProgress,
}: RunDemoOptions = {}): Promise<DemoResult> {
  if (!Number.isInteger(turns) || turns < 2)
    throw new SpillwayError('invalid_argument', `turns must be an integer >= 2, got ${turns}`);
  const session = demoSession({ turns, seed });
  const backend = backendOf(profile, scale);
  const emulator = await startEmulator({
    profile,
    model: backend.model,
    script: session.script,
    seed,
    ...(profile === 'litellm-vllm' ? { scale } : {}),
  });
  try {
    const format = profile === 'anthropic' ? 'anthropic' : 'openai';
    const baseUrl = format === 'anthropic' ? emulator.url : openAIBase(profile, emulator.url);
    const advertised = await resolveLimits({ model: backend.model, baseUrl, cache: false, probe: false });
    const onTurn = (turn: Parameters<NonNullable<Parameters<typeof runDemoSession>[0]['onTurn']>>[0]) =>
      onProgress?.(progressLine({ ...turn, turns: session.turns }));
    const plain = await runDemoSession({
      name: 'plain',
      session,
      emulator,
      client: clientFor(format, baseUrl),
      model: backend.model,
      ...(advertised.outputCap === undefined ? {} : { maxTokens: advertised.outputCap }),
      onTurn,
    });
    // Spillway's run resolves as `spillway chat` would: the probe may correct what is advertised.
    const limits = await resolveLimits({ model: backend.model, baseUrl, cache: false });
    const driver = new ConversationDriver(
      sendPolicy({ surface: 'demo', model: backend.model, limits }).driver,
    );
    const { reserve } = computeBudget({
      contextLength: limits.contextLength,
      ...(limits.outputCap === undefined ? {} : { outputCap: limits.outputCap }),
    });
    const spillway = await runDemoSession({
      name: 'spillway',
      session,
      emulator,
      client: clientFor(format, baseUrl),
      model: backend.model,
      driver,
      onTurn,
    });
    return {
      profile,
      turns: session.turns,
      scale,
      model: backend.model,
      advertised,
      limits,
      learned: learnedDuring(spillway),
      realWindow: backend.window,
      reserve,
      runs: { plain, spillway },
    };
  } finally {
    await emulator.close();
  }
}
