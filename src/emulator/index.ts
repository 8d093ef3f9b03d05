/**
 * @module
 * Backend emulators: OpenAI-compatible and Anthropic Messages servers on loopback that count tokens
 * with a real tokenizer through a real chat template, enforce limits and fail with the error bodies
 * of the servers they emulate (OpenAI, Anthropic, vLLM, LiteLLM in front of vLLM, llama.cpp,
 * LocalAI, Ollama), answer with a scripted model, and inject faults on demand.
 *
 * @example
 * import { startEmulator } from 'spillway/testing';
 * const emulator = await startEmulator({ profile: 'llamacpp', contextLength: 4_096 });
 * // point an agent at `${emulator.url}/v1`, then inspect emulator.requests
 * await emulator.close();
 */
export {
  DEFAULT_SYSTEM_PROMPT,
  IM_END,
  IM_START,
  renderChatTemplate,
  type TemplateInput,
  type TemplateMessage,
  type TemplateToolCall,
} from './chat-template.js';
export {
  type CountPromptTokensOptions,
  countPromptTokens,
  countRenderedTokens,
  type PromptFormat,
  type PromptTokenCount,
  renderPrompt,
} from './count-prompt-tokens.js';
export { type FakeToolResultOptions, fakeToolResult } from './fake-tool-result.js';
export { FAULT_KINDS, type FaultKind, type FaultRule, faultFor, parseFaults } from './faults.js';
export { RESPONSES_CONTEXT_MESSAGE } from './handle-responses.js';
export { ANTHROPIC_DEFAULTS } from './profiles/anthropic.js';
export { GEMINI_DEFAULTS, GEMINI_PAIRING_MESSAGE } from './profiles/gemini.js';
export { PROFILE_NAMES } from './profiles/index.js';
export {
  LITELLM_CONTEXT_WINDOW_SUBSTRINGS,
  LITELLM_VLLM_DEFAULTS,
  litellmSeesContextWindow,
} from './profiles/litellm-vllm.js';
export { LLAMACPP_DEFAULTS, LLAMACPP_WORDINGS, type LlamacppWording } from './profiles/llamacpp.js';
export { OLLAMA_DEFAULTS } from './profiles/ollama.js';
export { MAX_BODY_BYTES, OPENAI_DEFAULTS } from './profiles/openai.js';
export type { EmulatorProfileName, OverflowKind } from './profiles/profile.js';
export { VLLM_DEFAULTS } from './profiles/vllm.js';
export { DEFAULT_VLLM_WORDING, VLLM_WORDINGS, type VllmWording } from './profiles/vllm-wordings.js';
export {
  codingAgentScript,
  parseScript,
  type Script,
  type ScriptReply,
  type ScriptToolCall,
} from './script.js';
export { chatAgentScript, declaresChatTools } from './script-chat-agent.js';
export {
  GENERIC_RESULT_FILE,
  genericAgentReply,
  genericAgentScript,
  type OfferedTool,
  offeredTools,
  recogniseTools,
} from './script-generic-agent.js';
export { fillPlaceholders } from './script-placeholders.js';
export { startEmulator } from './start-emulator.js';
export {
  measureTemplateOverhead,
  type OverheadStats,
  type TemplateOverhead,
} from './template-overhead.js';
export { getTokenizer, splitForTokenizer, type Tokenizer, type TokenizerName } from './tokenizer.js';
export type { Emulator, EmulatorOptions, EmulatorRequestRecord } from './types.js';
