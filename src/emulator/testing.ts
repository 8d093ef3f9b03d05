/**
 * @module
 * `spillway/testing`: emulators of real inference servers on loopback (vLLM, llama.cpp, Ollama,
 * LiteLLM in front of vLLM, OpenAI, Anthropic, Gemini) with their documented limits, overflow
 * errors, counting endpoints and faults, and a scripted model, for testing an agent's context
 * handling without a GPU or a key.
 *
 * @example
 * import { startEmulator } from 'spillway/testing';
 * const server = await startEmulator({ profile: 'vllm', contextLength: 8_192 });
 */
export {
  codingAgentScript,
  countPromptTokens,
  type Emulator,
  type EmulatorOptions,
  type EmulatorProfileName,
  type EmulatorRequestRecord,
  FAULT_KINDS,
  fakeToolResult,
  genericAgentScript,
  measureTemplateOverhead,
  PROFILE_NAMES,
  parseFaults,
  startEmulator,
} from './index.js';
