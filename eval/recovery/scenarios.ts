/**
 * The recovery matrix's scenarios: emulator profiles, the window each server enforces and the one
 * the client is told (advertised by the server or configured by a user), and the session's shape.
 */
import type { EmulatorOptions, EmulatorProfileName, FaultRule } from '../../src/emulator/index.js';

export interface Scenario {
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

export const SCENARIOS: Scenario[] = [
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
