import { SpillwayError } from '../../core/index.js';
import { anthropicProfile } from './anthropic.js';
import { geminiProfile } from './gemini.js';
import { litellmVllmProfile } from './litellm-vllm.js';
import { llamacppProfile } from './llamacpp.js';
import { ollamaProfile } from './ollama.js';
import { openAIProfile } from './openai.js';
import type { EmulatorProfileName, Profile, ProfileOptions } from './profile.js';
import { vllmProfile } from './vllm.js';

/** Every profile name, in the order the README lists them. */
export const PROFILE_NAMES: readonly EmulatorProfileName[] = [
  'openai',
  'anthropic',
  'vllm',
  'litellm-vllm',
  'llamacpp',
  'localai',
  'ollama',
  'gemini',
];

const FACTORIES: Record<EmulatorProfileName, (options: ProfileOptions) => Profile> = {
  openai: openAIProfile,
  anthropic: anthropicProfile,
  vllm: vllmProfile,
  'litellm-vllm': litellmVllmProfile,
  llamacpp: (options) => llamacppProfile(options),
  localai: (options) => llamacppProfile(options, { localai: true }),
  ollama: ollamaProfile,
  gemini: geminiProfile,
};

/** The profile called `name`, configured; fails with `invalid_config` for an unknown name. */
export function createProfile(name: string, options: ProfileOptions): Profile {
  const factory = FACTORIES[name as EmulatorProfileName];
  if (!factory)
    throw new SpillwayError(
      'invalid_config',
      `unknown emulator profile ${JSON.stringify(name)}; use one of ${PROFILE_NAMES.join(', ')}`,
    );
  return factory(options);
}
